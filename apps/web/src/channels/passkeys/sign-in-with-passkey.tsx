import { useId } from 'react';
import { Alert } from '../../shared/components/alert';
import { useI18n } from '../../shared/i18n/i18n-context';
import { openWithPasskey } from './passkey-calls';
import { usePasskeyAction } from './use-passkey-action';

/**
 * The fourth strong sign-in of the channels page: one of the person's passkeys, with
 * the page's password session, opens a registration session (its cookie is the server's).
 * `onOpened` runs once it is open, for the page to show the channels.
 */
export function SignInWithPasskey({ onOpened }: { onOpened: () => void }) {
  const { t } = useI18n();
  const action = usePasskeyAction(t);

  const start = async () => {
    const opened = await action.run(async () => {
      await openWithPasskey();
      return true;
    });
    if (opened === true) onOpened();
  };

  return (
    <div className="passkey-sign-in" data-testid="passkey-sign-in">
      {action.error !== undefined && (
        <Alert variant="danger" announce testId="passkey-error">
          {action.error}
        </Alert>
      )}
      <button
        type="button"
        className="btn btn-outline"
        aria-disabled={action.busy || undefined}
        onClick={() => {
          if (!action.busy) void start();
        }}
      >
        {action.busy ? t('channels.passkeys.waiting') : t('channels.passkeys.signIn')}
      </button>
    </div>
  );
}

/** The passkey as one of the page's ways to sign in: an item of its list of ways. */
export function PasskeyWay({ onOpened }: { onOpened: () => void }) {
  const { t } = useI18n();
  const heading = useId();
  return (
    <li data-testid="way-passkey">
      <h2 id={heading}>{t('channels.passkeys.heading')}</h2>
      <SignInWithPasskey onOpened={onOpened} />
    </li>
  );
}
