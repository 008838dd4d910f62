import { useLayoutEffect } from 'react';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { CustomBranding } from '../resolve-branding';

/**
 * The administrator's CSS as a style block, and the page title (spec section 3). An empty custom
 * title would leave the tab and screen readers with nothing, so the default stands in for it.
 */
export function BrandingStyle({ branding }: { branding: CustomBranding }) {
  const { t } = useI18n();
  const title = branding.htmlTitle?.trim() || t('app.title');

  useLayoutEffect(() => {
    document.title = title;
  }, [title]);

  return branding.CSS ? <style data-testid="branding-css">{branding.CSS}</style> : null;
}
