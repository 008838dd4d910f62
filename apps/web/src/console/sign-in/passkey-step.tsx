import { useId } from 'react';
import { Alert } from '../../shared/components/alert';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { isBrowserRefusal, registerPasskey, confirmWithPasskey } from './passkey-ceremony';

/**
 * The console's second factor: at the first sign-in the account registers a passkey (through
 * the enrolment link an administrator gave it), after that it uses one. Nothing of the console opens before this step succeeds.
 */
export function PasskeyStep({
  step,
  enrolmentLinkOpened = false,
  onVerified,
  onCancel,
}: {
  step: 'register-passkey' | 'passkey';
  /** The account's enrolment link was opened in this tab: the first passkey may be registered. */
  enrolmentLinkOpened?: boolean;
  onVerified: () => void;
  onCancel: () => void;
}) {
  const { t } = useConsoleI18n();
  const ceremony = useConsoleAction();
  const id = useId();
  const registering = step === 'register-passkey';

  const start = async () => {
    const done = await ceremony.run(async () => {
      // A passkey just registered (with user verification) also completes this sign-in.
      await (registering ? registerPasskey() : confirmWithPasskey());
      return true;
    });
    if (done) onVerified();
  };

  return (
    <section className="card sign-in-card" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {registering ? t('passkey.registerHeading') : t('passkey.heading')}
      </h1>
      <p>{registering ? t('passkey.registerIntro') : t('passkey.intro')}</p>
      {registering && (
        <p className="alert alert-info" data-testid="console-enrolment">
          {enrolmentLinkOpened ? t('passkey.linkOpened') : t('passkey.linkMissing')}
        </p>
      )}
      {ceremony.error !== undefined &&
        (isBrowserRefusal(ceremony.error) ? (
          <Alert variant="danger" announce testId="console-error">
            {t('passkey.browserRefused')}
          </Alert>
        ) : (
          <FailureAlert error={ceremony.error} />
        ))}
      <div className="button-row">
        <BusyButton
          busy={ceremony.busy}
          busyLabel={t('passkey.waiting')}
          onClick={() => void start()}
          testId="console-passkey"
        >
          {registering ? t('passkey.register') : t('passkey.use')}
        </BusyButton>
        <button type="button" className="btn btn-outline" onClick={onCancel}>
          {t('signOut')}
        </button>
      </div>
    </section>
  );
}
