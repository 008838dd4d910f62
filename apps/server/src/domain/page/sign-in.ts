import type { AuditEventName } from '../audit/audit-events.js';
import { canonicalUsername, ErrorNumber, type Username } from '@dea/contract';
import { randomToken } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { HashQueue } from '../../crypto/hash-queue.js';
import { hashPassword, needsRehash, verifyPassword } from '../../crypto/password-hash.js';
import type { Store, User } from '../../store/store.js';
import { DomainError, invalidRequest, serviceUnavailable, tooManyRequests } from '../errors.js';
import type { Sessions } from './sessions.js';
import {
  DirectoryUnavailableError,
  type DirectoryAccountProblem,
  type DirectorySignInResult,
  type UserDirectory,
} from '../identity/user-directory.js';
import { NO_LOCAL_PASSWORD } from '../identity/provision-user.js';
import { limitKeyOf, type SigninThrottle } from './signin-throttle.js';
import type { SignInBulkheads } from '../bulkheads.js';
import type { People } from '../identity/people.js';

/** How long a client is asked to wait when every hashing slot and queue place is taken. */
const BUSY_RETRY_SECONDS = 1;
/** How long a client is asked to wait while the directory cannot be reached. */
const DIRECTORY_RETRY_SECONDS = 5;

export interface SignInRequest {
  username: string;
  password: string;
  clientAddress: string;
  /** A session the browser still holds: it ends, and a new id is issued (no fixation). */
  previousSessionId: string | undefined;
  /** False once the client has gone: its work is given up before it changes anything more. */
  stillWanted?: () => boolean;
}

/** One attempt at the first factor, as checkPassword needs it. */
interface Attempt {
  /** The canonical name; undefined when the profile refuses what was typed (no user has it). */
  name: Username | undefined;
  password: string;
  local: User | undefined;
  audit: (event: AuditEventName, details?: Record<string, unknown>) => Promise<void>;
  stillWanted: () => boolean;
  /** The attempt's password was not checked: its counts are given back. */
  notChecked: () => Promise<void>;
  /** Counts the attempt on the directory entry found; throws when the entry is locked. */
  admitEntry: (externalId: string) => Promise<void>;
}

interface CheckedPassword {
  user: User | undefined;
  passwordOk: boolean;
  local: boolean;
  /** Why a right password would not do either (audited). */
  refusal?: 'name-owned-by-directory';
  /** The directory's entry of this name is not the stored user's: the entry that was checked. */
  replacedBy?: string;
  /** The directory refused the account itself: the person is told to have it seen to. */
  accountProblem?: DirectoryAccountProblem;
}

/** The answer to a client that has gone: nobody reads it; the log and the audit say what happened. */
const abandoned = (): DomainError => invalidRequest('the client left before its answer');

export interface SignedIn {
  user: User;
  sessionId: string;
  xsrfToken: string;
}

export interface SignInDependencies {
  /** The store as sign-in work sees it: `bulkheads.store`, within its share of the connections. */
  store: Store;
  /** The bounds on sign-in work of this instance (domain/bulkheads.ts). */
  bulkheads: SignInBulkheads;
  throttle: SigninThrottle;
  sessions: Sessions;
  hashQueue: HashQueue;
  /** Hash of a random password at the cost most stored hashes have: unknown users cost as much. */
  decoyPasswordHash: () => Promise<string>;
  /** Key of the keyed hash under which unknown user names are audited. */
  identifierKey: Buffer;
  passwordHashCost: number;
  /**
   * The user's sign-in stamps (the time of the sign-in, a hash moved to the current cost), written
   * through the identity module over the same store as sign-in's own calls (`store`).
   */
  people: Pick<People, 'recordSignIn' | 'rehashPassword'>;
  /** The organisation's directory, when users come from one (DEA_LDAP_URL). */
  directoryUsers?: UserDirectory | undefined;
  now: () => number;
}

/**
 * The hash an unknown user's password is checked against: of a random password, at the cost most
 * stored hashes have, so that after a change of the configured cost unknown users still take as
 * long as known ones (whose hashes move to the new cost as they sign in).
 */
export async function decoyPasswordHash(store: Store, configuredCost: number): Promise<string> {
  const cost = (await store.users.mostCommonPasswordCost()) ?? configuredCost;
  return hashPassword(randomToken(16), cost);
}

/** Locked user names and addresses get error 140 with the time to wait. */
function lockedError(retryAfterMs: number): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return tooManyRequests(
    retryAfterSeconds,
    retryAfterSeconds < 60 ? 'error.tooManyRequests' : 'login.locked',
  );
}

/**
 * Signing in with user name and password: the first factor, and in on-screen mode the only thing
 * between a caller and a code (DESIGN section 7). Every entry point that checks a local password
 * calls this one use case, so the limits of ADR 0008 hold for all of them.
 */
export class SignIn {
  constructor(private readonly deps: SignInDependencies) {}

  /**
   * Who the audit log names: the user name of a known user, a keyed hash of anything else (of its
   * canonical form, so that every spelling of one unknown name is one actor).
   */
  private actorOf(username: string, user: User | undefined): string {
    return (
      user?.username ?? `unknown:${keyedHash(this.deps.identifierKey, limitKeyOf(username)).slice(0, 16)}`
    );
  }

  async signIn(request: SignInRequest): Promise<SignedIn> {
    const { store, now } = this.deps;
    const at = now();
    const { user, local } = await this.checkCredentials(request, at);
    if (request.stillWanted?.() === false) {
      // The password was right, but nobody would receive the session.
      await store.audit.append(
        {
          event: 'signin.abandoned',
          userId: user.id,
          actor: user.username,
          clientAddress: request.clientAddress,
          details: { stage: 'after-check' },
        },
        at,
      );
      throw abandoned();
    }
    const { sessions } = this.deps;
    if (request.previousSessionId !== undefined) await sessions.end(request.previousSessionId, at);
    const { sessionId, xsrfToken } = await sessions.start(user.id, at);
    await this.deps.people.recordSignIn(user.id, at);
    await store.audit.append(
      {
        event: 'signin.succeeded',
        userId: user.id,
        actor: user.username,
        clientAddress: request.clientAddress,
        details: local ? {} : { source: 'ldap' },
      },
      at,
    );
    return { user, sessionId, xsrfToken };
  }

  /**
   * The first factor alone, within every limit of ADR 0008: the user whose password this is, or
   * an DomainError (wrong or unknown: login.failed; a limit: 140; busy or directory down: 503), each
   * refusal audited. Sign-in starts a session after it; RADIUS checks a code after it when a
   * group asks for password and code in one field.
   */
  checkCredentials(
    request: Pick<SignInRequest, 'username' | 'password' | 'clientAddress' | 'stillWanted'>,
    at: number = this.deps.now(),
  ): Promise<{ user: User; local: boolean }> {
    // Within the instance's bound on sign-ins in flight (error 140 beyond it), before any work.
    return this.deps.bulkheads.admitted(() => this.checkAdmitted(request, at));
  }

  private async checkAdmitted(
    request: Pick<SignInRequest, 'username' | 'password' | 'clientAddress' | 'stillWanted'>,
    at: number,
  ): Promise<{ user: User; local: boolean }> {
    const { store, throttle } = this.deps;
    const { username, password, clientAddress } = request;
    // The one spelling of the name (RFC 8265); a name the profile refuses is no user's, and is
    // never handed to a directory that would match it by rules of its own.
    const name = canonicalUsername(username);
    const local = name === undefined ? undefined : await store.users.findByUsername(name);
    let user = local;
    let entryId: string | undefined;
    const audit = (event: AuditEventName, details: Record<string, unknown> = {}) =>
      store.audit.append(
        { event, userId: user?.id ?? null, actor: this.actorOf(username, user), clientAddress, details },
        at,
      );
    const attempt: Attempt = {
      name,
      password,
      local,
      audit,
      stillWanted: request.stillWanted ?? (() => true),
      notChecked: () => throttle.notChecked(username, clientAddress, entryId),
      admitEntry: async (externalId) => {
        const admission = await throttle.admitEntry(externalId, clientAddress, at);
        if (!admission.allowed) {
          await audit('signin.locked', { limit: admission.reason });
          throw lockedError(admission.retryAfterMs);
        }
        entryId = externalId;
      },
    };

    const admission = await throttle.admit(username, clientAddress, at);
    if (!admission.allowed) {
      await audit('signin.locked', { limit: admission.reason });
      throw lockedError(admission.retryAfterMs);
    }
    const checked = await this.checkPassword(attempt);
    user = checked.user;
    if (checked.replacedBy !== undefined) {
      // The person is told to have the account seen to; the help desk and the operator find why.
      await audit('signin.failed', {
        reason: 'directory-entry-replaced',
        externalId: checked.replacedBy,
        previousExternalId: user?.externalId ?? null,
      });
      throw new DomainError(ErrorNumber.notPermitted, 'login.directoryAccount');
    }
    if (checked.accountProblem !== undefined) {
      // Never "wrong password": the directory says what is wrong with the account, the audit (and
      // so the help desk) says which, and the person is told their directory account needs attention.
      await audit('signin.failed', { reason: 'directory-account', directoryProblem: checked.accountProblem });
      throw new DomainError(ErrorNumber.notPermitted, 'login.directoryAccount');
    }
    if (user === undefined || user.disabled || !checked.passwordOk) {
      await audit('signin.failed', {
        reason:
          checked.refusal ??
          (user === undefined ? 'unknown-user' : user.disabled ? 'disabled' : 'wrong-password'),
      });
      throw new DomainError(ErrorNumber.notPermitted, 'login.failed');
    }
    await throttle.succeeded(username, clientAddress, entryId);
    if (checked.local && needsRehash(user.passwordHash, this.deps.passwordHashCost))
      await this.rehash(user, password);
    return { user, local: checked.local };
  }

  /**
   * Whose password this is and whether it is right: by the directory for its users (and for
   * names no local user has), by the stored hash for local users. Unknown names cost what a wrong
   * password costs (a decoy bind with a directory, the decoy hash without), as do users without a
   * password of their own: one answer, one timing. A name belongs to one source: a user of
   * another source whose name the directory has is refused (its password never stands for the
   * directory's user).
   */
  private async checkPassword(attempt: Attempt): Promise<CheckedPassword> {
    const { directoryUsers } = this.deps;
    const { name, password, local, audit } = attempt;
    if (directoryUsers !== undefined && (local === undefined || local.source === 'ldap')) {
      let result: DirectorySignInResult;
      try {
        result =
          name === undefined
            ? (await directoryUsers.decoyCheck(), { kind: 'not-in-directory' })
            : await directoryUsers.signIn(name, password, attempt.admitEntry);
      } catch (error) {
        if (!(error instanceof DirectoryUnavailableError)) throw error;
        // Nothing was checked: the attempt does not count, and there is no local fallback.
        await attempt.notChecked();
        await audit('signin.directory_unavailable', { cause: error.message });
        throw serviceUnavailable(DIRECTORY_RETRY_SECONDS);
      }
      if (result.kind === 'signed-in') return { user: result.user, passwordOk: true, local: false };
      if (result.kind === 'wrong-password') return { user: result.user, passwordOk: false, local: false };
      if (result.kind === 'entry-replaced')
        return { user: result.user, passwordOk: false, local: false, replacedBy: result.externalId };
      if (result.kind === 'account-problem')
        return { user: result.user, passwordOk: false, local: false, accountProblem: result.problem };
      // Not in the directory: an unknown name, or a directory user just disabled for it. The
      // directory's decoy bind stood in for the check, so no hash is spent here.
      const user = local && (await this.deps.store.users.findById(local.id));
      return { user, passwordOk: false, local: false };
    }
    if (directoryUsers !== undefined && local !== undefined && name !== undefined) {
      let owned: boolean;
      try {
        owned = await directoryUsers.hasUser(name);
      } catch (error) {
        if (!(error instanceof DirectoryUnavailableError)) throw error;
        await attempt.notChecked();
        await audit('signin.directory_unavailable', { cause: error.message });
        throw serviceUnavailable(DIRECTORY_RETRY_SECONDS);
      }
      // The directory's user of this name is not this one: its password is checked nowhere here.
      if (owned) return { user: local, passwordOk: false, local: true, refusal: 'name-owned-by-directory' };
    }
    const stored =
      local === undefined || local.passwordHash === NO_LOCAL_PASSWORD
        ? await this.deps.decoyPasswordHash()
        : local.passwordHash;
    // A client that left while waiting for its turn costs no hash.
    const hashed = this.deps.hashQueue.tryRun(async (derive) =>
      attempt.stillWanted() ? verifyPassword(password, stored, derive) : undefined,
    );
    if (hashed === undefined) {
      await attempt.notChecked();
      await audit('signin.busy');
      throw tooManyRequests(BUSY_RETRY_SECONDS);
    }
    const verified = await hashed;
    if (verified === undefined) {
      await attempt.notChecked();
      await audit('signin.abandoned', { stage: 'before-check' });
      throw abandoned();
    }
    const passwordOk = verified && local !== undefined && local.passwordHash !== NO_LOCAL_PASSWORD;
    return { user: local, passwordOk, local: true };
  }

  /** A hash made at another cost is made again at the configured one, now that the password is known. */
  private async rehash(user: User, password: string): Promise<void> {
    const rehashed = this.deps.hashQueue.tryRun((derive) =>
      hashPassword(password, this.deps.passwordHashCost, derive),
    );
    // A busy server signs the user in all the same; the next sign-in rehashes.
    if (rehashed === undefined) return;
    await this.deps.people.rehashPassword(user.id, user.passwordHash, await rehashed);
  }
}
