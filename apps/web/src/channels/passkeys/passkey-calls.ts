import type { UserPasskey, UserPasskeyListResult } from '@dea/contract';
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { requestResult } from '../../api/request';

/**
 * The calls of a person's own passkeys (the server's routes/api/passkey-routes.ts):
 * the server's options, the browser's dialog, the server. Failures are the page's ApiErrors, or
 * the browser's own refusal (isBrowserRefusal).
 */
const post = <T>(path: string, body: unknown = {}, signal?: AbortSignal) =>
  requestResult<T>(path, { method: 'POST', body, ...(signal !== undefined && { signal }) });

/** Opens a registration session with one of the person's passkeys (its cookie is the server's). */
export async function openWithPasskey(): Promise<void> {
  const optionsJSON = await post<PublicKeyCredentialRequestOptionsJSON>('registration/passkey/options');
  const credential = await startAuthentication({ optionsJSON });
  await post('registration/passkey/open', { credential });
}

export async function listPasskeys(signal?: AbortSignal): Promise<UserPasskey[]> {
  return (await post<UserPasskeyListResult>('passkeys/list', {}, signal)).passkeys;
}

/** Makes a passkey in the browser and keeps it under `name`; answers it as the server lists it. */
export async function addPasskey(name: string): Promise<UserPasskey> {
  const optionsJSON = await post<PublicKeyCredentialCreationOptionsJSON>('passkeys/options');
  const credential = await startRegistration({ optionsJSON });
  return (await post<{ passkey: UserPasskey }>('passkeys/add', { credential, name })).passkey;
}

export async function renamePasskey(id: string, name: string): Promise<void> {
  await post('passkeys/rename', { id, name });
}

export async function removePasskey(id: string): Promise<void> {
  await post('passkeys/remove', { id });
}

/** The browser's own refusal (cancelled, timed out, no authenticator): not the server's. */
export function isBrowserRefusal(error: unknown): boolean {
  return (
    error instanceof Error &&
    ['NotAllowedError', 'WebAuthnError', 'InvalidStateError', 'AbortError'].includes(error.name)
  );
}
