import { RETURN_ENDPOINT_PARAM } from '@dea/contract';
import { useEffect } from 'react';
import { browserLocation } from '../../../shared/browser-location';
import { Modal } from '../../../shared/components/modal';
import { useI18n } from '../../../shared/i18n/i18n-context';
import { safeReturnUrl } from '../../../shared/safe-return-url';

/**
 * After logout (spec section 2): a modal that cannot be dismissed. "Back to login" follows `ep`
 * only to a URL of this very host; anything else is ignored.
 */
export function LogoutLandingPage({ query }: { query: URLSearchParams }) {
  const { t } = useI18n();

  useEffect(() => {
    document.title = t('logoutLanding.title');
  }, [t]);

  function backToLogin() {
    const target = safeReturnUrl(query.get(RETURN_ENDPOINT_PARAM), window.location);
    if (target !== undefined) browserLocation.assign(target);
  }

  return (
    <main className="landing">
      <Modal
        open
        title={t('logoutLanding.title')}
        titleLevel={1}
        testId="logout-landing"
        footer={
          <button type="button" className="btn btn-primary" onClick={backToLogin}>
            {t('logoutLanding.backToLogin')}
          </button>
        }
      >
        <p>{t('logoutLanding.content')}</p>
      </Modal>
    </main>
  );
}
