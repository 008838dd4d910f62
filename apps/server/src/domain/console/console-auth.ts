import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type * as WebAuthnServer from '@simplewebauthn/server';
import type * as WebAuthnHelpers from '@simplewebauthn/server/helpers';
import { ErrorNumber } from '@dea/contract';
import type { HashQueue } from '../../crypto/hash-queue.js';
import { randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, sha256 } from '../../crypto/keyed-hash.js';
import { verifyPassword } from '../../crypto/password-hash.js';
import type { ConsoleAccount, ConsoleSession, Store } from '../../store/store.js';
import { DomainError, forbidden, tooManyRequests } from '../errors.js';
import type { AuditEventName } from '../audit/audit-events.js';
import { type ConsoleDirectory, noDirectoryRole } from './console-directory.js';
import { type ConsoleEnrolment, enrolmentRefused } from './console-enrolment.js';
import type { ConsoleEnrolmentConfig } from './console-settings.js';
import { verifiedPasskeyCounter } from './passkey-assertion.js';
import { limitKeyOf, type SigninThrottle } from '../page/signin-throttle.js';
import { consoleAccountNamed } from '../identity/user-names.js';
import type { ConsoleAccounts } from '../identity/console-accounts.js';

/**
 * @simplewebauthn/server, loaded at the first passkey ceremony: loading it took about half of the
 * time every process (each `dea` command, each start of the server) spent loading its modules,
 * and most of them never see a passkey.
 */
let webAuthnModules:
  | Promise<{
      server: typeof WebAuthnServer;
      helpers: typeof WebAuthnHelpers;
    }>
  | undefined;
const webAuthn = () =>
  (webAuthnModules ??= Promise.all([
    import('@simplewebauthn/server'),
    import('@simplewebauthn/server/helpers'),
  ]).then(([server, helpers]) => ({ server, helpers })));

/** Where a WebAuthn ceremony happens: the console's origin and its host name (the RP ID). */
export interface RelyingParty {
  origin: string;
  rpId: string;
}

export interface ConsoleAuthSettings extends ConsoleEnrolmentConfig {
  /** A console session ends after this long without a request (15 minutes). */
  idleMs: number;
  /** How long a passkey check counts before a sensitive action asks for it again. */
  passkeyFreshMs: number;
}

export interface ConsoleAuthDependencies {
  store: Store;
  /** The sign-in limits of ADR 0008, over console user names (prefixed console:). */
  throttle: SigninThrottle;
  hashQueue: HashQueue;
  decoyPasswordHash: () => Promise<string>;
  settings: ConsoleAuthSettings;
  /** The one-time links without which an account cannot register its first passkey. */
  enrolment: ConsoleEnrolment;
  /** The accounts' one writer: a passkey registered, a passkey's use at sign-in. */
  accounts: Pick<ConsoleAccounts, 'addPasskey' | 'usePasskey'>;
  /**
   * Sessions signed in through the OpenID provider (console-oidc.ts): their account as it stands
   * after the role's refresh, undefined once the session was ended for it.
   */
  oidc?: {
    current(
      session: ConsoleSession,
      account: ConsoleAccount,
    ): Promise<{ account: ConsoleAccount; provider: boolean } | undefined>;
    /** At sign-out: the provider revokes the session's refresh token; true when it did. */
    revokeAtSignOut(idHash: string): Promise<boolean>;
  };
  /**
   * Console roles from directory groups (DEA_CONSOLE_LDAP_ROLES): the directory password of a
   * name no local account has, and the role read again as a session goes on.
   */
  directory?: ConsoleDirectory;
  now: () => number;
}

/** A console session as a request sees it: whose, and how far its sign-in got. */
export interface ConsoleCaller {
  account: ConsoleAccount;
  session: ConsoleSession;
  sessionId: string;
  /** The passkey was verified in this session (the password alone only opens the passkey steps). */
  passkeyVerified: boolean;
  /** How the session signed in: its second factor is a passkey, or the OpenID provider's. */
  signedInWith: 'passkey' | 'provider';
}

const notSignedIn = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 'unauthenticated');
const refused = (): DomainError => new DomainError(ErrorNumber.notPermitted, 'login.failed');

/** The passkey of the console: the second factor every console account must use. */
export class ConsoleAuth {
  constructor(private readonly deps: ConsoleAuthDependencies) {}

  /**
   * The first factor: a console account's password, within the sign-in limits. Starts a session
   * that can only go on to the passkey: registering one (the first time) or using one.
   */
  async password(
    username: string,
    password: string,
    clientAddress: string,
  ): Promise<{
    sessionId: string;
    xsrfToken: string;
    account: ConsoleAccount;
    next: 'register-passkey' | 'passkey';
  }> {
    const { store, throttle, now } = this.deps;
    const at = now();
    // Counted under the name's canonical form (signin-throttle.ts limitKeyOf), like a user's.
    const subject = `console:${limitKeyOf(username)}`;
    const account = await consoleAccountNamed(store, username);
    const audit = (event: AuditEventName, details: Record<string, unknown> = {}) =>
      store.audit.append({ event, actor: `console:${account?.username ?? '?'}`, clientAddress, details }, at);
    const admission = await throttle.admit(subject, clientAddress, at);
    if (!admission.allowed) {
      await audit('console.signin_failed', { reason: 'locked', limit: admission.reason });
      throw tooManyRequests(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
    }
    const { directory } = this.deps;
    if (directory !== undefined && (await directory.owns(account))) {
      // A directory person: the directory checks the password and their groups give the role.
      const answer = await directory.signIn(username, password).catch(async (error: unknown) => {
        await throttle.notChecked(subject, clientAddress);
        await audit('console.signin_failed', { reason: 'directory-unavailable' });
        throw error;
      });
      if (answer.kind === 'refused') {
        await store.audit.append(
          {
            event: 'console.signin_failed',
            actor: `console:${account?.username ?? '?'}`,
            clientAddress,
            details: { reason: answer.reason, source: 'directory', ...answer.details },
          },
          at,
        );
        throw answer.reason === 'unmapped' ? noDirectoryRole() : refused();
      }
      await throttle.succeeded(subject, clientAddress);
      const started = await this.startSession(answer.account, at);
      await directory.sessionStarted(sha256(started.sessionId), at);
      return { ...started, account: answer.account, next: await this.passkeyStep(answer.account.id) };
    }
    // An account of the OpenID provider has no password: checked against the decoy, then refused.
    const stored = account?.passwordHash || (await this.deps.decoyPasswordHash());
    const hashed = this.deps.hashQueue.tryRun((derive) => verifyPassword(password, stored, derive));
    if (hashed === undefined) {
      await throttle.notChecked(subject, clientAddress);
      throw tooManyRequests(1);
    }
    const right = await hashed;
    if (account === undefined || account.disabled || account.passwordHash === '' || !right) {
      await audit('console.signin_failed', {
        reason:
          account === undefined
            ? 'unknown-account'
            : account.disabled
              ? 'disabled'
              : account.passwordHash === ''
                ? 'identity-provider-account'
                : 'wrong-password',
      });
      throw refused();
    }
    await throttle.succeeded(subject, clientAddress);
    const { sessionId, xsrfToken } = await this.startSession(account, at);
    return { sessionId, xsrfToken, account, next: await this.passkeyStep(account.id) };
  }

  /** A new session of the account, past its first factor. */
  private async startSession(account: ConsoleAccount, at: number) {
    const sessionId = randomToken(32);
    const xsrfToken = randomToken(32);
    await this.deps.store.console.createSession({
      idHash: sha256(sessionId),
      accountId: account.id,
      xsrfHash: sha256(xsrfToken),
      createdAt: at,
      lastSeenAt: at,
    });
    return { sessionId, xsrfToken };
  }

  /** The second step after the password: register the first passkey, or use one. */
  async passkeyStep(accountId: string): Promise<'register-passkey' | 'passkey'> {
    const passkeys = await this.deps.store.console.listPasskeys(accountId);
    return passkeys.length === 0 ? 'register-passkey' : 'passkey';
  }

  /**
   * The caller of a request: the session must be open, not idle too long, of an enabled account,
   * and (for anything that changes) carry the session's cross-site token.
   */
  async caller(
    sessionId: string | undefined,
    xsrfToken: string | undefined,
    needsToken: boolean,
  ): Promise<ConsoleCaller> {
    const { store, now, settings } = this.deps;
    if (sessionId === undefined) throw notSignedIn();
    const at = now();
    const session = await store.console.findSession(sha256(sessionId));
    if (session === undefined || session.endedAt !== null) throw notSignedIn();
    if (at - session.lastSeenAt >= settings.idleMs) {
      await store.console.endSession(session.idHash, at);
      throw notSignedIn();
    }
    if (needsToken && (xsrfToken === undefined || !constantTimeEqual(sha256(xsrfToken), session.xsrfHash)))
      throw forbidden();
    const found = await store.console.findAccountById(session.accountId);
    if (found === undefined || found.disabled) {
      await store.console.endSession(session.idHash, at);
      throw notSignedIn();
    }
    // A session of the OpenID provider takes its role again when due; it may end for it.
    const current =
      this.deps.oidc === undefined
        ? { account: found, provider: false }
        : await this.deps.oidc.current(session, found);
    if (current === undefined) throw notSignedIn();
    // A directory person's session takes its role again from their groups when due.
    if (!current.provider && this.deps.directory !== undefined) {
      const read = await this.deps.directory.current(session, current.account);
      if (read === undefined) throw notSignedIn();
      if (read !== 'not-directory') current.account = read;
    }
    const { account } = current;
    await store.console.touchSession(session.idHash, at);
    return {
      account,
      session,
      sessionId,
      passkeyVerified: session.passkeyAt !== null,
      signedInWith: current.provider ? 'provider' : 'passkey',
    };
  }

  /** Whether the passkey was checked recently enough for a sensitive action (issuing a code). */
  passkeyFresh(caller: ConsoleCaller): boolean {
    const { passkeyAt } = caller.session;
    return passkeyAt !== null && this.deps.now() - passkeyAt < this.deps.settings.passkeyFreshMs;
  }

  /**
   * The options of a passkey's registration. The first passkey needs the password and the
   * account's enrolment link (checked here, used at the registration); more need a passkey first.
   */
  async registrationOptions(
    caller: ConsoleCaller,
    rp: RelyingParty,
    enrolmentToken?: string,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { store, settings } = this.deps;
    const existing = await store.console.listPasskeys(caller.account.id);
    if (existing.length > 0 && !caller.passkeyVerified) throw notSignedIn();
    if (existing.length === 0) {
      const refusal = await this.deps.enrolment.check(caller.account, enrolmentToken);
      if (refusal !== undefined) {
        await this.audit('console.enrolment_link_refused', caller, this.deps.now(), { reason: refusal });
        throw enrolmentRefused(refusal);
      }
    }
    const { generateRegistrationOptions } = (await webAuthn()).server;
    const options = await generateRegistrationOptions({
      rpName: 'Emergency Access console',
      rpID: rp.rpId,
      userName: caller.account.username,
      userDisplayName: caller.account.displayName,
      userID: new TextEncoder().encode(caller.account.id),
      // Allowed models are known by the authenticator's attestation: ask for it only then.
      attestationType: settings.allowedAaguids.length > 0 ? 'direct' : 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    await store.console.setChallenge(caller.session.idHash, options.challenge);
    return options;
  }

  async register(
    caller: ConsoleCaller,
    response: RegistrationResponseJSON,
    rp: RelyingParty,
    enrolmentToken?: string,
  ): Promise<void> {
    const { store, now, settings } = this.deps;
    const at = now();
    const challenge = await store.console.takeChallenge(caller.session.idHash);
    const existing = await store.console.listPasskeys(caller.account.id);
    if (challenge === undefined || (existing.length > 0 && !caller.passkeyVerified)) throw notSignedIn();
    const { server, helpers } = await webAuthn();
    const verification = await server
      .verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
      })
      .catch(() => undefined);
    if (verification?.verified !== true || verification.registrationInfo === undefined) {
      await this.audit('console.passkey_refused', caller, at, { ceremony: 'registration' });
      throw refused();
    }
    const { credential, aaguid, fmt, attestationObject } = verification.registrationInfo;
    if (
      settings.allowedAaguids.length > 0 &&
      !attestedModel(helpers, fmt, attestationObject, aaguid, settings)
    ) {
      await this.audit('console.passkey_refused', caller, at, {
        ceremony: 'registration',
        reason: 'authenticator-not-allowed',
        aaguid,
        fmt,
      });
      throw new DomainError(ErrorNumber.notPermitted, 'console.authenticatorNotAllowed');
    }
    // The first passkey uses the account's enrolment link, once: of two registrations at once
    // with the same link, one gets the passkey.
    const first = existing.length === 0;
    if (first) {
      const refusal = await this.deps.enrolment.use(caller.account, enrolmentToken, at);
      if (refusal !== undefined) {
        await this.audit('console.enrolment_link_refused', caller, at, { reason: refusal });
        throw enrolmentRefused(refusal);
      }
    }
    if (first) await this.audit('console.enrolment_link_used', caller, at, { credentialId: credential.id });
    // The passkey and its audit entry, written by the account's one writer.
    await this.deps.accounts.addPasskey(
      caller.account,
      {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
        createdAt: at,
        lastUsedAt: at,
      },
      { role: caller.account.role, aaguid },
    );
    await store.console.markPasskey(caller.session.idHash, at);
  }

  async authenticationOptions(
    caller: ConsoleCaller,
    rp: RelyingParty,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { store } = this.deps;
    const passkeys = await store.console.listPasskeys(caller.account.id);
    const { generateAuthenticationOptions } = (await webAuthn()).server;
    const options = await generateAuthenticationOptions({
      rpID: rp.rpId,
      userVerification: 'required',
      allowCredentials: passkeys.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
    });
    await store.console.setChallenge(caller.session.idHash, options.challenge);
    return options;
  }

  async authenticate(
    caller: ConsoleCaller,
    response: AuthenticationResponseJSON,
    rp: RelyingParty,
  ): Promise<void> {
    const { store, now } = this.deps;
    const at = now();
    const challenge = await store.console.takeChallenge(caller.session.idHash);
    const passkey = await store.console.findPasskey(response.id);
    if (challenge === undefined || passkey === undefined || passkey.accountId !== caller.account.id) {
      await this.audit('console.passkey_refused', caller, at, { ceremony: 'authentication' });
      throw refused();
    }
    const newCounter = await verifiedPasskeyCounter(response, challenge, rp, passkey);
    const counted =
      newCounter !== undefined && (await this.deps.accounts.usePasskey(passkey.credentialId, newCounter, at));
    if (!counted) {
      await this.audit('console.passkey_refused', caller, at, { ceremony: 'authentication' });
      throw refused();
    }
    await store.console.markPasskey(caller.session.idHash, at);
    await this.audit('console.signin', caller, at, { credentialId: passkey.credentialId });
  }

  async signOut(caller: ConsoleCaller): Promise<void> {
    const at = this.deps.now();
    // A session of the OpenID provider: its refresh token is revoked there before the session ends.
    const revoked = (await this.deps.oidc?.revokeAtSignOut(caller.session.idHash)) ?? false;
    await this.deps.store.console.endSession(caller.session.idHash, at);
    await this.audit('console.signout', caller, at, revoked ? { refreshTokenRevoked: true } : {});
  }

  private audit(
    event: AuditEventName,
    caller: ConsoleCaller,
    at: number,
    details: Record<string, unknown> = {},
  ) {
    return this.deps.store.audit.append(
      {
        event,
        actor: `console:${caller.account.username}`,
        details: { role: caller.account.role, ...details },
      },
      at,
    );
  }
}

/**
 * Whether a registration shows, by its attestation, an authenticator model of
 * DEA_CONSOLE_PASSKEY_AAGUIDS: an attestation statement with a certificate (x5c; not 'none', not
 * packed self-attestation, where the AAGUID is only the authenticator's word), verified by
 * verifyRegistrationResponse, whose AAGUID is listed. The certificate is not chained to the
 * vendor's root: there is no metadata service here (docs/operator/console.md).
 */
function attestedModel(
  { decodeAttestationObject }: typeof WebAuthnHelpers,
  fmt: string,
  attestationObject: Uint8Array,
  aaguid: string,
  settings: Pick<ConsoleAuthSettings, 'allowedAaguids'>,
): boolean {
  if (fmt === 'none') return false;
  const statement = decodeAttestationObject(new Uint8Array(attestationObject)).get('attStmt');
  const certified = statement.get('x5c') !== undefined || fmt === 'android-safetynet';
  return certified && settings.allowedAaguids.includes(aaguid.toLowerCase());
}
