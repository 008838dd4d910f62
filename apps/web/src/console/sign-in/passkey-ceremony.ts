import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { consoleCall } from '../api/console-call';
import { enrolmentToken, forgetEnrolmentLink } from '../session/enrolment-link';

/**
 * Registers a passkey for the signed-in account: the server's options, the browser, the server.
 * The first passkey goes with the token of the enrolment link opened in this tab.
 */
export async function registerPasskey(): Promise<void> {
  const enrolment = enrolmentToken();
  const optionsJSON = await consoleCall<PublicKeyCredentialCreationOptionsJSON>(
    'passkey/registration/options',
    { method: 'POST', body: enrolment === undefined ? {} : { enrolment } },
  );
  const response = await startRegistration({ optionsJSON });
  await consoleCall('passkey/registration', {
    method: 'POST',
    body: enrolment === undefined ? response : { ...response, enrolment },
  });
  forgetEnrolmentLink();
}

/** Confirms the session with one of the account's passkeys (at sign-in, and again before a code). */
export async function confirmWithPasskey(): Promise<void> {
  const optionsJSON = await consoleCall<PublicKeyCredentialRequestOptionsJSON>(
    'passkey/authentication/options',
    { method: 'POST' },
  );
  const response = await startAuthentication({ optionsJSON });
  await consoleCall('passkey/authentication', { method: 'POST', body: response });
}

/** The browser's own refusal (cancelled, timed out, no authenticator): not the server's. */
export function isBrowserRefusal(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'NotAllowedError' ||
      error.name === 'WebAuthnError' ||
      error.name === 'InvalidStateError' ||
      error.name === 'AbortError')
  );
}
