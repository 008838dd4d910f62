import { CONSOLE_ENROLMENT_FRAGMENT, ErrorNumber } from '@dea/contract';
import { randomToken } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { ConsoleAccount, Store } from '../../store/store.js';
import { DomainError } from '../errors.js';
import type { ConsoleEnrolmentConfig } from './console-settings.js';

/** Why an enrolment link did not let an account register its first passkey. */
export type EnrolmentRefusal = 'missing' | 'unknown' | 'used' | 'expired' | 'other-account';

export interface ConsoleEnrolmentDependencies {
  store: Store;
  /** HMAC keys of link tokens: the current secret's first, then the previous one's while it is replaced. */
  keys: readonly Buffer[];
  settings: Pick<ConsoleEnrolmentConfig, 'consoleUrl' | 'enrolmentLinkMs'>;
  now: () => number;
}

/**
 * The one-time link a console account needs to register its first passkey: made by `dea admin
 * add` and `dea admin reset-passkeys`, kept only as a keyed hash, used once, valid for
 * DEA_CONSOLE_ENROLMENT_LINK_HOURS. The password alone never binds a passkey to an account.
 */
export class ConsoleEnrolment {
  constructor(private readonly deps: ConsoleEnrolmentDependencies) {}

  /** A new link for the account (its earlier unused ones stop working), audited as made by `actor`. */
  async issue(account: ConsoleAccount, actor: string): Promise<{ url: string; expiresAt: number }> {
    const { store, keys, settings, now } = this.deps;
    const at = now();
    const token = randomToken(32);
    const expiresAt = at + settings.enrolmentLinkMs;
    await store.console.addEnrolmentLink({
      tokenHash: keyedHash(keys[0]!, 'console-enrolment', token),
      accountId: account.id,
      createdAt: at,
      expiresAt,
    });
    await store.audit.append(
      {
        event: 'console.enrolment_link_issued',
        actor,
        details: { username: account.username, expiresAt: new Date(expiresAt).toISOString() },
      },
      at,
    );
    return { url: `${settings.consoleUrl}#${CONSOLE_ENROLMENT_FRAGMENT}${token}`, expiresAt };
  }

  /** Whether the token would let the account register its first passkey now (nothing is used). */
  async check(account: ConsoleAccount, token: string | undefined): Promise<EnrolmentRefusal | undefined> {
    if (token === undefined || token === '') return 'missing';
    const link = await this.deps.store.console.findEnrolmentLink(this.hashes(token));
    if (link === undefined) return 'unknown';
    if (link.accountId !== account.id) return 'other-account';
    if (link.usedAt !== null) return 'used';
    if (link.expiresAt <= this.deps.now()) return 'expired';
    return undefined;
  }

  /**
   * Uses the link for the account's first passkey: of many uses at once, one succeeds. Any other
   * answers why not.
   */
  async use(
    account: ConsoleAccount,
    token: string | undefined,
    at: number,
  ): Promise<EnrolmentRefusal | undefined> {
    if (token === undefined || token === '') return 'missing';
    if (await this.deps.store.console.useEnrolmentLink(this.hashes(token), account.id, at)) return undefined;
    return (await this.check(account, token)) ?? 'used';
  }

  private hashes(token: string): string[] {
    return this.deps.keys.map((key) => keyedHash(key, 'console-enrolment', token));
  }
}

/** The refusal a person sees: no link at all, or one that cannot be used (never which of those reasons). */
export const enrolmentRefused = (reason: EnrolmentRefusal): DomainError =>
  new DomainError(
    ErrorNumber.notPermitted,
    reason === 'missing' ? 'console.enrolmentLinkNeeded' : 'console.enrolmentLinkInvalid',
  );
