import {
  CONSOLE_OIDC_START_PATH,
  type HelpDeskIssueRequest,
  type HelpDeskIssueResult,
  type HelpDeskSendRequest,
  type HelpDeskSendResult,
  type HelpDeskUser,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../shared/components/alert';
import { consoleCall, ConsoleCallError } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { confirmWithPasskey } from '../sign-in/passkey-ceremony';
import { channelLabel } from './channel-label';

const REASON_MIN = 5;
const REASON_MAX = 500;
const ON_SCREEN = 'screen';

type Outcome = { kind: 'code'; code: string; expiresAt: string } | { kind: 'sent'; to: string };

/**
 * Gives a caller a code, after the agent writes down why: shown here once, or sent to one of the
 * user's channels. When the session's passkey check is no longer fresh the server asks for it
 * again, and the form does that before trying once more.
 */
export function IssueCodeForm({ user, onIssued }: { user: HelpDeskUser; onIssued: () => void }) {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const [reason, setReason] = useState('');
  // Only what the user's policy and channels allow (the server's offers): no "Send it to …" for a
  // policy that shows codes on screen.
  const channels = user.channels.filter((channel) => user.offers.channels.includes(channel.reference));
  const [destination, setDestination] = useState(
    user.offers.onScreen ? ON_SCREEN : (channels[0]?.reference ?? ON_SCREEN),
  );
  const [reasonInvalid, setReasonInvalid] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [askingPasskey, setAskingPasskey] = useState(false);
  // A session of the identity provider whose sign-in is too old for a code: it signs in there again.
  const [providerAgain, setProviderAgain] = useState(false);
  const issuing = useConsoleAction();
  const path = `helpdesk/users/${encodeURIComponent(user.user.id)}/codes`;

  const once = async (): Promise<Outcome> => {
    if (destination === ON_SCREEN) {
      const body: HelpDeskIssueRequest = { reason: reason.trim() };
      const issued = await consoleCall<HelpDeskIssueResult>(path, { method: 'POST', body });
      return { kind: 'code', ...issued };
    }
    const body: HelpDeskSendRequest = { reason: reason.trim(), recipient: destination };
    const sent = await consoleCall<HelpDeskSendResult>(`${path}/send`, { method: 'POST', body });
    return { kind: 'sent', to: sent.to };
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reason.trim();
    const invalid = trimmed.length < REASON_MIN || trimmed.length > REASON_MAX;
    setReasonInvalid(invalid);
    if (invalid) return;
    setOutcome(undefined);
    setProviderAgain(false);
    const result = await issuing.run(async () => {
      try {
        return await once();
      } catch (error) {
        if (error instanceof ConsoleCallError && error.providerAgain) {
          setProviderAgain(true);
          return undefined;
        }
        if (!(error instanceof ConsoleCallError && error.passkeyAgain)) throw error;
        setAskingPasskey(true);
        try {
          await confirmWithPasskey();
        } finally {
          setAskingPasskey(false);
        }
        return once();
      }
    });
    if (result !== undefined) {
      setOutcome(result);
      setReason('');
      onIssued();
    }
  };

  return (
    <section className="card console-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('issue.title')}</h2>
      {outcome?.kind === 'code' && (
        <div className="issued-code" role="status" data-testid="issued-code-box">
          <p>{t('issue.readOut')}</p>
          <p className="code-box" data-testid="issued-code">
            <bdi>{outcome.code}</bdi>
          </p>
          <p>{t('issue.validUntil', { until: formatTime(outcome.expiresAt) })}</p>
          <button type="button" className="btn btn-outline" onClick={() => setOutcome(undefined)}>
            {t('issue.hide')}
          </button>
        </div>
      )}
      {outcome?.kind === 'sent' && (
        <Alert variant="success" announce testId="issued-sent">
          {t('issue.sent', { to: outcome.to })}
        </Alert>
      )}
      {providerAgain && (
        <Alert variant="info" announce testId="issue-provider-again">
          {t('issue.providerAgain')}{' '}
          <a href={`${CONSOLE_OIDC_START_PATH}?again=1`}>{t('issue.providerAgainLink')}</a>
        </Alert>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="form-field">
          <label htmlFor={`${id}-reason`}>{t('issue.reason')}</label>
          <p id={`${id}-reason-hint`} className="field-hint">
            {t('issue.reasonHint', { min: REASON_MIN, max: REASON_MAX })}
          </p>
          <textarea
            id={`${id}-reason`}
            rows={2}
            maxLength={REASON_MAX}
            value={reason}
            aria-describedby={`${id}-reason-hint`}
            aria-invalid={reasonInvalid}
            onChange={(event) => setReason(event.target.value)}
            data-testid="issue-reason"
          />
        </div>
        <fieldset className="form-field">
          <legend>{t('issue.destination')}</legend>
          {user.offers.onScreen && (
            <label className="choice">
              <input
                type="radio"
                name={`${id}-destination`}
                value={ON_SCREEN}
                checked={destination === ON_SCREEN}
                onChange={() => setDestination(ON_SCREEN)}
              />
              {t('issue.onScreen')}
            </label>
          )}
          {channels.map((channel) => (
            <label className="choice" key={channel.reference}>
              <input
                type="radio"
                name={`${id}-destination`}
                value={channel.reference}
                checked={destination === channel.reference}
                onChange={() => setDestination(channel.reference)}
              />
              {t('issue.sendTo', { channel: channelLabel(t, channel.key), to: channel.masked })}
            </label>
          ))}
        </fieldset>
        {reasonInvalid && (
          <p className="alert alert-danger" role="alert">
            {t('issue.reasonInvalid', { min: REASON_MIN, max: REASON_MAX })}
          </p>
        )}
        <FailureAlert error={issuing.error} />
        <BusyButton
          type="submit"
          busy={issuing.busy}
          busyLabel={askingPasskey ? t('issue.confirmPasskey') : t('issue.issuing')}
          testId="issue-submit"
        >
          {destination === ON_SCREEN ? t('issue.submitScreen') : t('issue.submitSend')}
        </BusyButton>
      </form>
    </section>
  );
}
