import { ErrorNumber, newPasswordProblem, PASSWORD_LINK_FRAGMENT } from '@dea/contract';
import { randomToken } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { Store } from '../../store/store.js';
import { DomainError, invalidRequest, tooManyRequests } from '../errors.js';
import { NoSuchUser, type People } from './people.js';
import { type ChangeBy, requireOwnership } from './user-ownership.js';

/** Why a link did not set a password; the person is told only that the link cannot be used. */
export type PasswordLinkRefusal = 'unknown' | 'used' | 'expired';

export interface PasswordLinkDependencies {
  store: Store;
  people: People;
  /** HMAC keys of link tokens: the current secret's first, then the previous one's while it is replaced. */
  keys: readonly Buffer[];
  linkMs: number;
  /** The login application's full address, ending in '/': links are it plus '#reset=<token>'. */
  loginUrl: string;
  /** The password's hash at the configured cost; undefined when the hashing queue is full. */
  hashPassword: (password: string) => Promise<string> | undefined;
  now: () => number;
}

/**
 * The one-time link with which a user sets a new password: made by an
 * administrator (the console, `dea user password-link`) for a user whose password an operator may
 * set (user-ownership.ts: never a directory user's), kept only as a keyed hash, valid for
 * DEA_PASSWORD_LINK_HOURS, used once; the password is set through People.setPassword, which ends
 * the user's sessions and audits it.
 */
export class PasswordLinks {
  constructor(private readonly deps: PasswordLinkDependencies) {}

  /** A new link for the user (their earlier unused ones stop working), audited as made by `by`. */
  async issue(by: ChangeBy, userId: string): Promise<{ url: string; expiresAt: number }> {
    const { store, keys, linkMs, loginUrl, now } = this.deps;
    const user = await store.users.findById(userId);
    if (user === undefined) throw new NoSuchUser(userId);
    requireOwnership(user, 'password', by.door);
    const at = now();
    const token = randomToken(32);
    const expiresAt = at + linkMs;
    await store.transaction(async (tx) => {
      await tx.passwordLinks.add({
        tokenHash: keyedHash(keys[0]!, 'password-link', token),
        userId,
        createdAt: at,
        expiresAt,
      });
      await tx.audit.append(
        {
          event: 'user.password_link_issued',
          userId,
          actor: by.actor,
          details: { ...by.details, expiresAt: new Date(expiresAt).toISOString() },
        },
        at,
      );
    });
    return { url: `${loginUrl}#${PASSWORD_LINK_FRAGMENT}${token}`, expiresAt };
  }

  /**
   * Sets the password of the link's user, once: of two uses at once, one sets it. Refused (400,
   * never saying why) for a link unknown, used or expired; the reason is in the audit log.
   */
  async use(token: string, password: string, clientAddress: string): Promise<void> {
    const { store, people, now } = this.deps;
    const hashes = this.deps.keys.map((key) => keyedHash(key, 'password-link', token));
    const refuse = async (reason: PasswordLinkRefusal, userId?: string) => {
      await store.audit.append(
        {
          event: 'user.password_link_refused',
          ...(userId !== undefined && { userId }),
          actor: 'password-link',
          clientAddress,
          details: { reason },
        },
        now(),
      );
      return new DomainError(ErrorNumber.notPermitted, 'error.passwordLinkInvalid');
    };
    const link = await store.passwordLinks.find(hashes);
    if (link === undefined) throw await refuse('unknown');
    if (link.usedAt !== null) throw await refuse('used', link.userId);
    if (link.expiresAt <= now()) throw await refuse('expired', link.userId);
    const problem = newPasswordProblem(password);
    if (problem !== undefined) throw invalidRequest(problem);
    const hashing = this.deps.hashPassword(password);
    if (hashing === undefined) throw tooManyRequests(1);
    const passwordHash = await hashing;
    const at = now();
    if (!(await store.passwordLinks.use(hashes, at))) {
      const again = await store.passwordLinks.find(hashes);
      throw await refuse(again !== undefined && again.expiresAt <= at ? 'expired' : 'used', link.userId);
    }
    const user = await store.users.findById(link.userId);
    if (user === undefined) throw await refuse('unknown');
    await people.setPassword(
      { door: 'local', actor: `user:${user.username}`, details: { via: 'password-link', clientAddress } },
      user.id,
      passwordHash,
    );
  }
}
