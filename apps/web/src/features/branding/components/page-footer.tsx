import { APP_VERSION } from '@dea/contract';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { CustomBranding } from '../resolve-branding';
import { BrandedHtml } from './branded-html';

/** Left, middle and right footer segments (spec sections 2 and 3). */
export function PageFooter({ branding }: { branding: CustomBranding }) {
  const { t } = useI18n();
  return (
    <footer className="page-footer">
      <div className="footer-left" data-testid="footer-left">
        <BrandedHtml branding={branding} name="footerLeft" fallback={t('app.title')} />
      </div>
      <div className="footer-middle" data-testid="footer-middle">
        <BrandedHtml
          branding={branding}
          name="footerMiddle"
          fallback={t('app.copyright', { year: new Date().getFullYear() })}
        />
      </div>
      <div className="footer-right" data-testid="footer-right">
        <BrandedHtml
          branding={branding}
          name="footerRight"
          fallback={t('app.version', { version: APP_VERSION })}
        />
      </div>
    </footer>
  );
}
