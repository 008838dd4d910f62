import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { ErrorNumber } from '@dea/contract';
import type { Store, User, UserPasskey } from '../../store/store.js';
import type { PasskeyCeremony } from '../../store/sql/user-passkeys.js';
import { DomainError, notFound } from '../errors.js';
import type { AuditEventName } from '../audit/audit-events.js';
import { verifiedPasskeyCounter } from '../console/passkey-assertion.js';
import type { RelyingParty } from '../console/console-auth.js';
import {
  registrationSignInNeeded,
  type OpenedRegistration,
  type RegistrationSignIn,
  type SignedInPerson,
} from './registration-sign-in.js';

/** How long the options of a ceremony may be answered: the browser's own timeout is one minute. */
export const PASSKEY_CHALLENGE_MS = 5 * 60_000;
/** How many passkeys one person may keep. */
export const MAX_USER_PASSKEYS = 10;

/** A passkey as its person sees it on the channels page. */
export interface UserPasskeyView {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface UserPasskeyServices {
  store: Store;
  registrationSignIn: Pick<RegistrationSignIn, 'require' | 'openAfter'>;
  now: () => number;
}

/** Loaded at the first ceremony, as console-auth.ts does: most processes never see a passkey. */
const webAuthn = () => import('@simplewebauthn/server');

const viewOf = (passkey: UserPasskey): UserPasskeyView => ({
  id: passkey.credentialId,
  name: passkey.name,
  createdAt: passkey.createdAt,
  lastUsedAt: passkey.lastUsedAt,
});

const addRefused = (): DomainError => new DomainError(ErrorNumber.notPermitted, 'error.notPermitted');

/** The challenge the browser signed, read from its client data (checked again by the verification). */
function challengeOf(response: { response: { clientDataJSON: string } }): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A person's own passkeys, the fourth strong sign-in that opens the registration of
 * channels. A passkey is added only inside an open registration session (a password alone never
 * adds one); with the page's password session of the same person, one of their passkeys with
 * user verification opens a registration session. Each ceremony's challenge is the person's, one
 * per ceremony, expires after PASSKEY_CHALLENGE_MS and is taken in one statement before the answer
 * is checked: a replayed answer, or the second of two answers at once, finds no challenge. As
 * there is one challenge per person and ceremony, two additions at once add one passkey at most,
 * which holds MAX_USER_PASSKEYS. The relying party is the page's origin and host, as the console's (routes take it from the request).
 */
export class UserPasskeys {
  constructor(private readonly services: UserPasskeyServices) {}

  /** The options to sign in with one of the person's passkeys; refused when they have none. */
  async signInOptions(
    person: SignedInPerson,
    rp: RelyingParty,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const passkeys = await this.services.store.userPasskeys.listOfUser(person.user.id);
    if (passkeys.length === 0) {
      await this.refusedSignIn(person, 'no-passkey');
      throw registrationSignInNeeded();
    }
    const options = await (await webAuthn()).generateAuthenticationOptions({
      rpID: rp.rpId,
      userVerification: 'required',
      allowCredentials: passkeys.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
    });
    await this.keepChallenge(person.user, 'authentication', options.challenge);
    return options;
  }

  /** The authenticator's answer: one of this person's passkeys, verified by them, opens a session. */
  async openWithPasskey(
    person: SignedInPerson & { response: AuthenticationResponseJSON },
    rp: RelyingParty,
  ): Promise<OpenedRegistration> {
    const { store, now } = this.services;
    const { user, response } = person;
    const checkedAt = now();
    const refuse = async (reason: string) => {
      await this.refusedSignIn(person, reason, response.id);
      return registrationSignInNeeded();
    };
    const challenge = challengeOf(response);
    if (challenge === undefined || !(await this.takeChallenge(user, 'authentication', challenge)))
      throw await refuse('challenge-unknown');
    const passkey = await store.userPasskeys.findOfUser(user.id, response.id);
    if (passkey === undefined) throw await refuse('unknown-passkey');
    const newCounter = await verifiedPasskeyCounter(response, challenge, rp, passkey);
    if (newCounter === undefined) throw await refuse('not-verified');
    if (!(await store.userPasskeys.use(user.id, passkey.credentialId, newCounter, now())))
      throw await refuse('counter');
    return this.services.registrationSignIn.openAfter(
      person,
      'passkey',
      { credentialId: passkey.credentialId },
      checkedAt,
    );
  }

  /** The person's passkeys, inside a registration session. */
  async list(person: SignedInPerson, token: string | undefined): Promise<UserPasskeyView[]> {
    await this.services.registrationSignIn.require(person.user, token);
    return (await this.services.store.userPasskeys.listOfUser(person.user.id)).map(viewOf);
  }

  /** The options to add a passkey, inside a registration session. */
  async registrationOptions(
    person: SignedInPerson,
    token: string | undefined,
    rp: RelyingParty,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { user } = person;
    await this.services.registrationSignIn.require(user, token);
    const existing = await this.services.store.userPasskeys.listOfUser(user.id);
    if (existing.length >= MAX_USER_PASSKEYS) {
      await this.audit(person, 'passkey.refused', { reason: 'too-many' });
      throw addRefused();
    }
    const options = await (await webAuthn()).generateRegistrationOptions({
      rpName: 'Emergency Access',
      rpID: rp.rpId,
      userName: user.username,
      userDisplayName: user.fullName,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    await this.keepChallenge(user, 'registration', options.challenge);
    return options;
  }

  /** The authenticator's new credential, inside a registration session, kept under `name`. */
  async add(
    person: SignedInPerson & { response: RegistrationResponseJSON; name: string },
    token: string | undefined,
    rp: RelyingParty,
  ): Promise<UserPasskeyView> {
    const { store, now } = this.services;
    const { user, response } = person;
    await this.services.registrationSignIn.require(user, token);
    const refuse = async (reason: string) => {
      await this.audit(person, 'passkey.refused', { reason });
      return addRefused();
    };
    const challenge = challengeOf(response);
    if (challenge === undefined || !(await this.takeChallenge(user, 'registration', challenge)))
      throw await refuse('challenge-unknown');
    const verification = await (await webAuthn())
      .verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
      })
      .catch(() => undefined);
    if (verification?.verified !== true || verification.registrationInfo === undefined)
      throw await refuse('not-verified');
    const { credential, aaguid } = verification.registrationInfo;
    if ((await store.userPasskeys.listOfUser(user.id)).length >= MAX_USER_PASSKEYS)
      throw await refuse('too-many');
    const passkey: UserPasskey = {
      credentialId: credential.id,
      userId: user.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: person.name.trim(),
      createdAt: now(),
      lastUsedAt: null,
    };
    // A credential id is unique: one already kept (this person's or anyone's) is refused.
    const added = await store.userPasskeys.add(passkey);
    if (!added) throw await refuse('already-registered');
    await this.audit(person, 'passkey.registered', { credentialId: credential.id, aaguid });
    return viewOf(passkey);
  }

  async rename(
    person: SignedInPerson & { id: string; name: string },
    token: string | undefined,
  ): Promise<void> {
    await this.services.registrationSignIn.require(person.user, token);
    if (!(await this.services.store.userPasskeys.rename(person.user.id, person.id, person.name.trim())))
      throw notFound();
    await this.audit(person, 'passkey.renamed', { credentialId: person.id });
  }

  async remove(person: SignedInPerson & { id: string }, token: string | undefined): Promise<void> {
    await this.services.registrationSignIn.require(person.user, token);
    if (!(await this.services.store.userPasskeys.remove(person.user.id, person.id))) throw notFound();
    await this.audit(person, 'passkey.removed', { credentialId: person.id });
  }

  private keepChallenge(user: User, ceremony: PasskeyCeremony, challenge: string): Promise<void> {
    return this.services.store.userPasskeys.setChallenge(
      user.id,
      ceremony,
      challenge,
      this.services.now() + PASSKEY_CHALLENGE_MS,
    );
  }

  private takeChallenge(user: User, ceremony: PasskeyCeremony, challenge: string): Promise<boolean> {
    return this.services.store.userPasskeys.takeChallenge(user.id, ceremony, challenge, this.services.now());
  }

  private refusedSignIn(person: SignedInPerson, reason: string, credentialId?: string): Promise<void> {
    return this.audit(person, 'registration.refused', {
      method: 'passkey',
      reason,
      ...(credentialId !== undefined && { credentialId }),
    });
  }

  private audit(
    person: SignedInPerson,
    event: AuditEventName,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.services.store.audit.append(
      { event, userId: person.user.id, actor: person.user.id, clientAddress: person.clientAddress, details },
      this.services.now(),
    );
  }
}

/**
 * Removes every passkey of the person: the help desk (`actor` console:<agent>) and
 * `dea user forget-passkeys` (actor cli) alike, for a lost or stolen authenticator. Answers how many.
 */
export async function forgetUserPasskeys(
  services: Pick<UserPasskeyServices, 'store' | 'now'>,
  user: User,
  actor: string,
): Promise<number> {
  const { store, now } = services;
  const count = await store.transaction(async (tx) => {
    const removed = await tx.userPasskeys.removeAllOf(user.id);
    await tx.audit.append(
      { event: 'passkey.forgotten', userId: user.id, actor, details: { count: removed } },
      now(),
    );
    return removed;
  });
  return count;
}
