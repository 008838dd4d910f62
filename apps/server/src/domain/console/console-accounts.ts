import { newId } from '../../crypto/ids.js';
import type { Username } from '@dea/contract';
import type { ConsoleAccount, ConsoleRole, Store } from '../../store/store.js';
import type { ConsoleEnrolment } from './console-enrolment.js';
import { checkedScope } from './console-scope.js';
import { RuleError } from '../rule-error.js';

/** How a console account signs in; the role of one that signs in elsewhere comes from its groups. */
export type ConsoleAccountSource = 'local' | 'provider' | 'directory';

export interface ConsoleAccountOverview {
  account: ConsoleAccount;
  source: ConsoleAccountSource;
  lastSignInAt: number | null;
  passkeys: { credentialId: string; name: string | null; createdAt: number; lastUsedAt: number | null }[];
}

/**
 * The console accounts as administrators change them, from the console and from `dea admin`
 * alike (issue 31, part 4): role and scope, disable and enable (sessions end), passkeys one by
 * one (named, removed but never the last), and a lost passkey replaced (all removed, sessions
 * ended, a new enrolment link). Each change is audited as `console.account_changed` with `actor`.
 */
export class ConsoleAccounts {
  constructor(
    private readonly deps: {
      store: Store;
      enrolment: ConsoleEnrolment;
      now: () => number;
    },
  ) {}

  /**
   * A new local console account (`dea admin add` and the console alike): its password hashed by
   * the caller, audited, and the one-time enrolment link with which it registers its first passkey.
   */
  async add(
    input: {
      username: Username;
      displayName: string;
      role: ConsoleRole;
      scope: readonly string[] | null;
      passwordHash: string;
    },
    actor: string,
  ): Promise<{ account: ConsoleAccount; link: { url: string; expiresAt: number } }> {
    const { store, now } = this.deps;
    let scope: readonly string[] | null = null;
    if (input.scope !== null) {
      const result = checkedScope(input.role, input.scope, 'scope');
      if ('problem' in result) throw new RuleError(result.problem);
      scope = result.scope;
    }
    const at = now();
    const account: ConsoleAccount = {
      id: newId(at),
      username: input.username,
      displayName: input.displayName,
      role: input.role,
      passwordHash: input.passwordHash,
      disabled: false,
      createdAt: at,
      scope,
    };
    await store.transaction(async (tx) => {
      if ((await tx.console.findAccountByUsername(input.username)) !== undefined)
        throw new RuleError(`a console account named "${input.username}" already exists`, 'conflict');
      await tx.console.createAccount(account);
      await tx.audit.append(
        {
          event: 'console.account_created',
          actor,
          details: { username: account.username, role: account.role, ...(scope !== null && { scope }) },
        },
        at,
      );
    });
    return { account, link: await this.deps.enrolment.issue(account, actor) };
  }

  async sourceOf(account: ConsoleAccount): Promise<ConsoleAccountSource> {
    const { store } = this.deps;
    if ((await store.consoleDirectory.externalIdOf(account.id)) !== undefined) return 'directory';
    return account.passwordHash === '' ? 'provider' : 'local';
  }

  async overview(account: ConsoleAccount): Promise<ConsoleAccountOverview> {
    const { store } = this.deps;
    return {
      account,
      source: await this.sourceOf(account),
      lastSignInAt: await store.consolePasskeys.lastSignInOf(account.id),
      passkeys: await store.consolePasskeys.list(account.id),
    };
  }

  /**
   * A local account's role and scope. An account of the OpenID provider or the directory takes
   * both from its groups at every sign-in and refresh: refused (owned), naming where to change it.
   */
  async setRole(
    account: ConsoleAccount,
    role: ConsoleRole,
    scope: readonly string[] | null,
    actor: string,
  ): Promise<void> {
    const source = await this.sourceOf(account);
    if (source !== 'local')
      throw new RuleError(
        `${account.username}'s role comes from ${source === 'provider' ? 'the OpenID provider (DEA_CONSOLE_OIDC_ROLES)' : 'the directory (DEA_CONSOLE_LDAP_ROLES)'}; change their groups there`,
        'owned',
      );
    let checked: readonly string[] | null = null;
    if (scope !== null) {
      const result = checkedScope(role, scope, 'scope');
      if ('problem' in result) throw new RuleError(result.problem);
      checked = result.scope;
    }
    await this.changed(account, actor, { role, scope: checked }, async (tx) => {
      await tx.console.updateAccount(account.id, { role, scope: checked });
    });
  }

  /** Disabled (its sessions end at once) or enabled again; an administrator never disables themselves. */
  async setDisabled(
    account: ConsoleAccount,
    disabled: boolean,
    actor: string,
  ): Promise<{ sessionsEnded: number }> {
    if (disabled && actor === `console:${account.username}`)
      throw new RuleError('an administrator cannot disable their own account', 'conflict');
    let sessionsEnded = 0;
    await this.changed(account, actor, { change: disabled ? 'disabled' : 'enabled' }, async (tx, at) => {
      await tx.console.updateAccount(account.id, { disabled });
      if (disabled) sessionsEnded = await tx.console.endSessionsOf(account.id, at);
      return { sessionsEnded };
    });
    return { sessionsEnded };
  }

  async renamePasskey(
    account: ConsoleAccount,
    credentialId: string,
    name: string,
    actor: string,
  ): Promise<void> {
    const named = name.trim() === '' ? null : name.trim().slice(0, 64);
    await this.changed(account, actor, { change: 'passkey named', credentialId, name: named }, async (tx) => {
      if (!(await tx.consolePasskeys.rename(account.id, credentialId, named)))
        throw new RuleError('no such passkey of this account', 'missing');
    });
  }

  /** One passkey removed, never the account's last (replace a lost one with `resetPasskeys`). */
  async removePasskey(account: ConsoleAccount, credentialId: string, actor: string): Promise<void> {
    await this.changed(account, actor, { change: 'passkey removed', credentialId }, async (tx) => {
      const outcome = await tx.consolePasskeys.removeKeepingOne(account.id, credentialId);
      if (outcome === 'missing') throw new RuleError('no such passkey of this account', 'missing');
      if (outcome === 'last')
        throw new RuleError(
          "a console account's last passkey is not removed: replace a lost one with a new enrolment link",
          'conflict',
        );
    });
  }

  /**
   * A lost passkey replaced, by another administrator (the console) or an operator (`dea admin
   * reset-passkeys`): every passkey of the account removed, its sessions ended, and a new one-time
   * enrolment link with which it registers a new one.
   */
  async resetPasskeys(
    account: ConsoleAccount,
    actor: string,
  ): Promise<{ removed: number; sessionsEnded: number; link: { url: string; expiresAt: number } }> {
    const { store, now } = this.deps;
    const at = now();
    const { removed, sessionsEnded } = await store.transaction(async (tx) => {
      const result = {
        removed: await tx.console.removePasskeys(account.id),
        sessionsEnded: await tx.console.endSessionsOf(account.id, at),
      };
      await tx.audit.append(
        {
          event: 'console.account_changed',
          actor,
          details: { username: account.username, change: 'passkeys removed', ...result },
        },
        at,
      );
      return result;
    });
    return { removed, sessionsEnded, link: await this.deps.enrolment.issue(account, actor) };
  }

  private async changed(
    account: ConsoleAccount,
    actor: string,
    details: Record<string, unknown>,
    write: (tx: Store, at: number) => Promise<unknown>,
  ): Promise<void> {
    const at = this.deps.now();
    await this.deps.store.transaction(async (tx) => {
      const more = await write(tx, at);
      await tx.audit.append(
        {
          event: 'console.account_changed',
          actor,
          details: { username: account.username, ...details, ...(typeof more === 'object' ? more : {}) },
        },
        at,
      );
    });
  }
}
