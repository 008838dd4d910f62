import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { RelyingParty } from './console-auth.js';

/** A stored passkey, as the console's accounts and people keep theirs. */
export interface StoredPasskey {
  credentialId: string;
  /** The public key, base64url. */
  publicKey: string;
  counter: number;
  transports: readonly string[];
}

/**
 * The one check of a passkey's answer to its challenge, for the console's passkeys and people's
 * own: the challenge, the origin and RP ID, the signature by the stored key, and user verification
 * required. Answers the authenticator's new counter, or undefined when the answer does not hold.
 * The library is loaded at the first ceremony, as console-auth.ts explains.
 */
export async function verifiedPasskeyCounter(
  response: AuthenticationResponseJSON,
  challenge: string,
  rp: RelyingParty,
  passkey: StoredPasskey,
): Promise<number | undefined> {
  const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpId,
    requireUserVerification: true,
    credential: {
      id: passkey.credentialId,
      publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
      counter: passkey.counter,
      transports: [...passkey.transports],
    },
  }).catch(() => undefined);
  return verification?.verified === true ? verification.authenticationInfo.newCounter : undefined;
}
