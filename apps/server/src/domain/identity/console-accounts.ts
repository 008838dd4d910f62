import { newId } from '../../crypto/ids.js';
import type { Username } from '@dea/contract';
import type { ConsoleAccount, ConsolePasskey, ConsoleRole, Store } from '../../store/store.js';
import type { ConsoleEnrolment } from '../console/console-enrolment.js';
import { checkedScope, sameScope } from '../console/console-scope.js';
import { RuleError } from '../rule-error.js';

/** How a console account signs in; the role of one that signs in elsewhere comes from its groups. */
export type ConsoleAccountSource = 'local' | 'provider' | 'directory';

/** A scope checked against the role it limits (console-scope.ts); null: none. */
function checkedScopeOf(role: ConsoleRole, scope: readonly string[] | null): readonly string[] | null {
  if (scope === null) return null;
  const result = checkedScope(role, scope, 'scope');
  if ('problem' in result) throw new RuleError(result.problem);
  return result.scope;
}

export interface ConsoleAccountOverview {
  account: ConsoleAccount;
  source: ConsoleAccountSource;
  lastSignInAt: number | null;
  passkeys: { credentialId: string; name: string | null; createdAt: number; lastUsedAt: number | null }[];
}

/** Where a console account's role comes from when it signs in elsewhere, in a refusal's words. */
const ROLE_OWNER: Readonly<Record<Exclude<ConsoleAccountSource, 'local'>, string>> = {
  provider: 'the OpenID provider (DEA_CONSOLE_OIDC_ROLES)',
  directory: 'the directory (DEA_CONSOLE_LDAP_ROLES)',
};

/** The role (and scope) a sign-in elsewhere grants an account, from its groups at that moment. */
export interface ConsoleGrant {
  role: ConsoleRole;
  scope: readonly string[] | null;
}

/** Whom an account made at a sign-in elsewhere belongs to: the provider's subject, or the directory's entry. */
export type SignedInElsewhere =
  | { provider: { issuer: string; subject: string } }
  | { directory: { externalId: string } };

/**
 * The one way console accounts are written, whatever the door: administrators in the console and
 * operators with `dea admin` (add, role and scope, password, disable and enable with their
 * sessions ending, passkeys one by one, named or removed but never the last, a lost passkey
 * replaced with a new enrolment link, removal), the account's own passkey ceremonies (a passkey
 * registered, its counter as it signs in), and the sign-ins of people whose role comes from
 * elsewhere (the OpenID provider, the directory), which make their account at the first sign-in,
 * linked to whom it belongs, and bring its role up to date. The role and scope of an account of another source are that
 * source's: refused here, naming it. Each change commits with its audit entry, naming `actor`.
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
    const scope = checkedScopeOf(input.role, input.scope);
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
    await this.requireLocal(account, 'role');
    const checked = checkedScopeOf(role, scope);
    await this.changed(account, actor, { role, scope: checked }, async (tx) => {
      await tx.console.updateAccount(account.id, { role, scope: checked });
    });
  }

  /**
   * A local account limited to the members of these groups, or no longer (null): it sees and acts
   * on no one else from its next request. Another source's scope comes with its role: refused.
   */
  async setScope(account: ConsoleAccount, scope: readonly string[] | null, actor: string): Promise<void> {
    await this.requireLocal(account, 'scope');
    const checked = checkedScopeOf(account.role, scope);
    await this.changed(account, actor, { change: 'scope', scope: checked }, async (tx) => {
      await tx.console.updateAccount(account.id, { scope: checked });
    });
  }

  /** The account's password (a hash made by the caller); every session of it ends. */
  async setPassword(
    account: ConsoleAccount,
    passwordHash: string,
    actor: string,
  ): Promise<{ sessionsEnded: number }> {
    let sessionsEnded = 0;
    await this.changed(account, actor, { change: 'password' }, async (tx, at) => {
      await tx.console.updateAccount(account.id, { passwordHash });
      sessionsEnded = await tx.console.endSessionsOf(account.id, at);
      return { sessionsEnded };
    });
    return { sessionsEnded };
  }

  /** The account with its passkeys and sessions; audited as `console.account_removed`. */
  async remove(account: ConsoleAccount, actor: string): Promise<void> {
    const at = this.deps.now();
    await this.deps.store.transaction(async (tx) => {
      await tx.console.removeAccount(account.id);
      await tx.audit.append(
        {
          event: 'console.account_removed',
          actor,
          details: { username: account.username, role: account.role },
        },
        at,
      );
    });
  }

  /**
   * The account of a person who signs in elsewhere, made at their first sign-in: no password of
   * its own, the role its groups grant, linked to its person (`owner`) in the same transaction,
   * audited as `console.account_created` by the person (`details`: where it comes from).
   */
  async addSignedInElsewhere(
    input: { username: Username; displayName: string; grant: ConsoleGrant },
    owner: SignedInElsewhere,
    details: Record<string, unknown>,
    at: number,
  ): Promise<ConsoleAccount> {
    const account: ConsoleAccount = {
      id: newId(at),
      username: input.username,
      displayName: input.displayName,
      role: input.grant.role,
      passwordHash: '',
      disabled: false,
      createdAt: at,
      scope: input.grant.scope,
    };
    await this.deps.store.transaction(async (tx) => {
      await tx.console.createAccount(account);
      if ('provider' in owner)
        await tx.consoleOidc.linkIdentity(owner.provider.issuer, owner.provider.subject, account.id);
      else await tx.consoleDirectory.linkAccount(owner.directory.externalId, account.id);
      await tx.audit.append(
        {
          event: 'console.account_created',
          actor: `console:${account.username}`,
          details: { username: account.username, role: account.role, ...details },
        },
        at,
      );
    });
    return account;
  }

  /**
   * The role and scope a sign-in elsewhere read from the person's groups, written when they
   * differ from the account's, inside the caller's transaction (`store`); with `entry`, audited
   * as that event by the person, with the change and where it was read.
   */
  async takeGrant(
    store: Store,
    account: ConsoleAccount,
    grant: ConsoleGrant,
    at: number,
    entry?: {
      event: 'console.oidc_role_changed' | 'console.directory_role_changed';
      /** The account's role as the sign-in last read it. */
      from: ConsoleRole;
      details: Record<string, unknown>;
    },
  ): Promise<boolean> {
    const scopeChanged = !sameScope(grant.scope, account.scope);
    if (grant.role === (entry?.from ?? account.role) && !scopeChanged) return false;
    await store.console.updateAccount(account.id, { role: grant.role, scope: grant.scope });
    if (entry !== undefined)
      await store.audit.append(
        {
          event: entry.event,
          actor: `console:${account.username}`,
          details: {
            from: entry.from,
            to: grant.role,
            ...(scopeChanged && { fromScope: account.scope, toScope: grant.scope }),
            ...entry.details,
          },
        },
        at,
      );
    return true;
  }

  /**
   * A passkey the account registered in its own session (the caller checked the ceremony and, for
   * the first, used the enrolment link), audited as `console.passkey_registered` by the account
   * in the same transaction (`details`: the authenticator's model, the session's role).
   */
  async addPasskey(
    account: ConsoleAccount,
    passkey: Omit<ConsolePasskey, 'accountId'>,
    details: Record<string, unknown>,
  ): Promise<void> {
    const at = passkey.createdAt;
    await this.deps.store.transaction(async (tx) => {
      await tx.console.addPasskey({ ...passkey, accountId: account.id });
      await tx.audit.append(
        {
          event: 'console.passkey_registered',
          actor: `console:${account.username}`,
          details: { ...details, credentialId: passkey.credentialId },
        },
        at,
      );
    });
  }

  /**
   * A sign-in's use of the passkey: its counter and the time, written only when the
   * authenticator's counter moved on (or both are 0, for authenticators without one), in one
   * statement. False for a counter that did not, a sign of a cloned key; the sign-in audits it.
   */
  usePasskey(credentialId: string, counter: number, at: number): Promise<boolean> {
    return this.deps.store.console.usePasskey(credentialId, counter, at);
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

  /** Refuses a change of what another source owns (an account's role and scope), naming it. */
  private async requireLocal(account: ConsoleAccount, part: 'role' | 'scope'): Promise<void> {
    const source = await this.sourceOf(account);
    if (source !== 'local')
      throw new RuleError(
        `${account.username}'s ${part} comes from ${ROLE_OWNER[source]}; change their groups there`,
        'owned',
      );
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
