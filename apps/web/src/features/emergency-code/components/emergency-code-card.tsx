import type { ReactNode } from 'react';
import { browserLocation } from '../../../shared/browser-location';
import { Alert } from '../../../shared/components/alert';
import { ProgressBar } from '../../../shared/components/progress-bar';
import { Spinner } from '../../../shared/components/spinner';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { EmergencyCode, SentCode } from '../hooks/use-emergency-code';
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
      {view.kind === 'loading' && <Spinner label={t('loading')} heading />}
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
      {view.kind === 'channels' && emergencyCode.lastSent && !sending && (
        <SentLine sent={emergencyCode.lastSent} />
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
      {/* A failed start is no dead end: the page loads anew (the menu above logs out). */}
      {view.kind === 'unavailable' && (
        <div className="code-actions">
          <button type="button" className="btn btn-primary" onClick={() => browserLocation.reload()}>
            {t('content.tryAgain')}
          </button>
        </div>
      )}
      <SendResultModal result={sendResult} onClose={emergencyCode.dismissResult} />
    </section>
  );
}

/**
 * Where the last code went and until when it works, kept on the page once its result is closed:
 * a person who looks again sees it was sent, rather than sending again into the send limit.
 */
function SentLine({ sent }: { sent: SentCode }) {
  const { t, language } = useI18n();
  const text =
    sent.validUntil === undefined
      ? t('successMessage', { recipient: sent.to })
      : t('content.sentUntil', {
          recipient: sent.to,
          time: new Intl.DateTimeFormat(language.replace('_', '-'), { timeStyle: 'short' }).format(
            sent.validUntil,
          ),
        });
  return (
    <p className="code-validity" data-testid="sent-line">
      {text}
    </p>
  );
}
