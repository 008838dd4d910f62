import type { ReactNode } from 'react';
import { Alert } from '../../../shared/components/alert';
import { ProgressBar } from '../../../shared/components/progress-bar';
import { Spinner } from '../../../shared/components/spinner';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { EmergencyCode } from '../hooks/use-emergency-code';
import { ChannelMenus } from './channel-menus';
import { CodePanel } from './code-panel';
import { SendResultModal } from './send-result-modal';

/** The body card of the main page (spec section 2); `children` is the page's error area. */
export function EmergencyCodeCard({
  emergencyCode,
  children,
}: {
  emergencyCode: EmergencyCode;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const { view, sending, sendResult } = emergencyCode;
  return (
    <section className="card" aria-busy={view.kind === 'loading' || sending} data-testid="code-card">
      {view.kind === 'loading' && <Spinner label={t('loading')} />}
      {sending && (
        <div className="send-progress">
          <ProgressBar label={t('content.sending')} />
          <p className="send-progress-text" role="status">
            {t('content.sending')}
          </p>
        </div>
      )}
      {/* The title section only when codes are enabled (spec section 2); the failures have headings of their own. */}
      {(view.kind === 'channels' || view.kind === 'code') && (
        <h1 className="card-title">{t('content.title')}</h1>
      )}
      {view.kind === 'notAuthorized' && <h1 className="card-title">{t('content.notAuthorizedTitle')}</h1>}
      {view.kind === 'unavailable' && <h1 className="card-title">{t('content.unavailableTitle')}</h1>}
      {view.kind === 'notAuthorized' && (
        <Alert variant="danger" testId="not-authorized">
          {t('content.notAuthorized')}
        </Alert>
      )}
      {/* Codes on screen need a reason to trust here: the channels instead, or the help desk. */}
      {view.kind === 'channels' && view.untrusted && view.groups.length > 0 && (
        <Alert variant="info" testId="screen-code-untrusted">
          {t('content.screenCodeUntrusted')}
        </Alert>
      )}
      {view.kind === 'channels' &&
        (view.groups.length > 0 ? (
          <ChannelMenus groups={view.groups} sending={sending} onSend={emergencyCode.send} />
        ) : view.untrusted ? (
          <Alert variant="danger" testId="call-help-desk">
            {t('content.callHelpDesk')}
          </Alert>
        ) : (
          <Alert variant="danger" testId="no-channel">
            {t('content.noChannel')}
          </Alert>
        ))}
      {view.kind === 'code' && <CodePanel state={view} onRequestNewCode={emergencyCode.requestNewCode} />}
      {children}
      <SendResultModal result={sendResult} onClose={emergencyCode.dismissResult} />
    </section>
  );
}
