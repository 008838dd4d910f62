import type { ReactNode } from 'react';
import { SafeHtml } from '../../../shared/components/safe-html';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { CustomBranding } from '../resolve-branding';
import { BrandLogo } from './brand-logo';
import { BrandedHtml } from './branded-html';

export interface BrandedHeaderProps {
  branding: CustomBranding;
  /** What the right-hand side shows unless the administrator set a custom one (headerRight). */
  standIn?: ReactNode;
  /** Controls at the far end of the header (a menu), shown whatever the branding says. */
  actions: ReactNode;
}

/**
 * The header of every screen (spec section 2): logo, middle title, a right-hand side that a custom
 * headerRight replaces, and the screen's own controls. The page and the login application share it.
 */
export function BrandedHeader({ branding, standIn, actions }: BrandedHeaderProps) {
  const { t } = useI18n();
  return (
    <header className="page-header">
      <div className="header-left">
        <BrandLogo branding={branding} />
      </div>
      <div className="header-middle" data-testid="header-middle">
        <BrandedHtml branding={branding} name="headerMiddle" fallback={t('app.title')} />
      </div>
      <div className="header-right">
        {branding.headerRight !== undefined ? (
          <div className="header-custom" data-testid="header-right-custom">
            <SafeHtml html={branding.headerRight} />
          </div>
        ) : (
          standIn
        )}
        {actions}
      </div>
    </header>
  );
}
