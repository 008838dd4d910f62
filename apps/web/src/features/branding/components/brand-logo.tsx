import { useI18n } from '../../../shared/i18n/i18n-context';
import { PRODUCT_LOGO as defaultLogo } from '../../../shared/product-icon';
import { safeUrl } from '../../../shared/sanitize-html';
import type { CustomBranding } from '../resolve-branding';

/** The header logo: the administrator's image (headerLeft) or the product's own. */
export function BrandLogo({ branding }: { branding: CustomBranding }) {
  const { t } = useI18n();
  const custom = branding.headerLeft ? safeUrl(branding.headerLeft, 'image') : undefined;
  return (
    <img
      className="brand-logo"
      src={custom ?? defaultLogo}
      alt={t('header.logo')}
      height={40}
      data-testid="brand-logo"
    />
  );
}
