import { canonicalUsername, ErrorNumber } from '@dea/contract';
import type { ConsoleAccount, ConsoleRole, ConsoleSession, Store } from '../../store/store.js';
import { DomainError, serviceUnavailable } from '../errors.js';
import { grantOfValues } from './console-oidc.js';
import type { ConsoleAccounts } from '../identity/console-accounts.js';
import type { OidcRoleMapping } from './console-oidc-settings.js';
import {
  DirectoryUnavailableError,
  type PasswordCheck,
  type SourceRef,
  type SourceUser,
} from '../identity/user-directory.js';

/** The directory as the console's sign-in asks it (directory/ldap-directory.ts implements it). */
export interface ConsoleDirectorySource {
  findUser(name: string, options?: { groups?: boolean }): Promise<SourceUser | undefined>;
  passwordCheck(ref: SourceRef, password: string): Promise<PasswordCheck>;
  decoyCheck(): Promise<void>;
  /** Every group the user is in, nested ones included, as the source names them (an LDAP directory: normalized DNs). */
  groupDnsOf(ref: SourceRef): Promise<string[]>;
}

export interface ConsoleDirectorySettings {
  /** Group DNs (normalized) to the role each gives: DEA_CONSOLE_LDAP_ROLES. */
  roles: ReadonlyMap<string, OidcRoleMapping>;
  roleRefreshMs: number;
}

/** Why a directory person's console sign-in (or the reading of their role again) was refused. */
export type ConsoleDirectoryRefusal =
  | 'not-in-directory'
  | 'wrong-password'
  | 'directory-account'
  | 'disabled'
  | 'unmapped'
  | 'username-taken';

export type ConsoleDirectorySignIn =
  | { kind: 'signed-in'; account: ConsoleAccount }
  | { kind: 'refused'; reason: ConsoleDirectoryRefusal; details: Record<string, unknown> };

export interface ConsoleDirectoryDependencies {
  store: Store;
  /** The one way console accounts are written: the account of a first sign-in, its role kept up to date. */
  accounts: ConsoleAccounts;
  source: ConsoleDirectorySource;
  settings: ConsoleDirectorySettings;
  now: () => number;
}

/** What a request waiting on the directory is told when it cannot answer: nothing was decided. */
const DIRECTORY_RETRY_SECONDS = 5;

/** Shown to a person whose password was right but whose groups give no console role. */
export const noDirectoryRole = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'console.noDirectoryRole');

/**
 * Console roles from directory groups (DEA_CONSOLE_LDAP_ROLES): a directory
 * person signs in with the directory password (a bind as them, as the page's sign-in does), then a
 * passkey as local accounts do. The role comes from their groups at every sign-in and again every
 * DEA_CONSOLE_LDAP_ROLE_REFRESH_SECONDS (`current`, called by ConsoleAuth.caller): someone no
 * longer in a mapped group, disabled or gone from the directory has their session ended at their
 * next request after it.
 */
export class ConsoleDirectory {
  /** Readings of the role under way in this process, one per session. */
  private readonly reading = new Map<string, Promise<ConsoleAccount | undefined>>();

  constructor(private readonly deps: ConsoleDirectoryDependencies) {}

  /**
   * Whether a sign-in by this name is the directory's: no console account has the name, or the
   * one that has it is a directory person's. A local account keeps its own password.
   */
  async owns(account: ConsoleAccount | undefined): Promise<boolean> {
    return (
      account === undefined || (await this.deps.store.consoleDirectory.externalIdOf(account.id)) !== undefined
    );
  }

  /**
   * Checks the directory password of `name` and reads the person's groups: the console account
   * (made at the first sign-in, with no password of its own) with the role they map to now. Throws
   * the 503 of an unavailable directory (nothing decided).
   */
  async signIn(name: string, password: string): Promise<ConsoleDirectorySignIn> {
    const { source, settings } = this.deps;
    const refused = (reason: ConsoleDirectoryRefusal, details: Record<string, unknown> = {}) =>
      ({ kind: 'refused', reason, details }) as const;
    return this.directoryAnswer(async () => {
      const user = await source.findUser(name, { groups: false });
      if (user === undefined) {
        await source.decoyCheck();
        return refused('not-in-directory');
      }
      const check = await source.passwordCheck(user.ref, password);
      if (check.kind === 'wrong') return refused('wrong-password');
      if (check.kind === 'account-problem') return refused('directory-account', { problem: check.problem });
      if (user.disabled) return refused('disabled');
      const groups = await source.groupDnsOf(user.ref);
      const grant = grantOfValues(groups, settings);
      if (grant === undefined) return refused('unmapped', { groups });
      const found = await this.accountOf(user, grant, groups);
      if (found === undefined) return refused('username-taken', { externalId: user.externalId });
      if (found.disabled) return refused('disabled');
      return { kind: 'signed-in', account: found };
    });
  }

  /** Marks a new session as a directory person's: its role is read again from now on. */
  async sessionStarted(idHash: string, at: number): Promise<void> {
    await this.deps.store.consoleDirectory.addSession(idHash, at);
  }

  /**
   * The account of a session as it stands now: for a directory person's session whose role is
   * due, read again from the directory's groups (one reading per session at a time in this
   * process; of two instances at once, the first kept stands). Undefined: the session was ended
   * for it. 'not-directory': the session is not a directory person's.
   */
  async current(
    session: ConsoleSession,
    account: ConsoleAccount,
  ): Promise<ConsoleAccount | undefined | 'not-directory'> {
    const running = this.reading.get(session.idHash);
    if (running !== undefined) return running;
    const rolesAt = await this.deps.store.consoleDirectory.rolesAtOf(session.idHash);
    if (rolesAt === undefined) return 'not-directory';
    if (this.deps.now() - rolesAt < this.deps.settings.roleRefreshMs) return account;
    let reading = this.reading.get(session.idHash);
    if (reading === undefined) {
      reading = this.readAgain(session, account, rolesAt).finally(() => this.reading.delete(session.idHash));
      this.reading.set(session.idHash, reading);
    }
    return reading;
  }

  private async readAgain(
    session: ConsoleSession,
    account: ConsoleAccount,
    readRolesAt: number,
  ): Promise<ConsoleAccount | undefined> {
    const { store, source, settings, now } = this.deps;
    const at = now();
    const externalId = await store.consoleDirectory.externalIdOf(account.id);
    const end = async (reason: ConsoleDirectoryRefusal, details: Record<string, unknown> = {}) => {
      await store.transaction(async (tx) => {
        await tx.console.endSession(session.idHash, at);
        await tx.audit.append(
          {
            event: 'console.directory_role_changed',
            actor: `console:${account.username}`,
            details: { from: account.role, to: null, reason, ...details },
          },
          at,
        );
      });
      return undefined;
    };
    const read = await this.directoryAnswer(async () => {
      const user = await source.findUser(account.username, { groups: false });
      if (user === undefined || user.externalId !== externalId) return 'not-in-directory' as const;
      if (user.disabled) return 'disabled' as const;
      return { groups: await source.groupDnsOf(user.ref) };
    });
    if (typeof read === 'string') return end(read);
    const { groups } = read;
    const grant = grantOfValues(groups, settings);
    if (grant === undefined) return end('unmapped', { groups });
    const { role, scope } = grant;
    const saved = await store.transaction(async (tx) => {
      const first = await tx.consoleDirectory.saveRolesAt(session.idHash, readRolesAt, at);
      if (first) await this.changeRole(tx, account, grant, groups, at);
      return first;
    });
    if (saved) return { ...account, role, scope };
    // Another instance read it first: its result stands.
    const ended = (await store.console.findSession(session.idHash))?.endedAt !== null;
    const kept = await store.console.findAccountById(account.id);
    return ended || kept === undefined ? undefined : kept;
  }

  /** Writes a role (and scope) that changed, audited with the groups it was read from. */
  private async changeRole(
    tx: Store,
    account: ConsoleAccount,
    grant: { role: ConsoleRole; scope: readonly string[] | null },
    groups: readonly string[],
    at: number,
  ): Promise<void> {
    await this.deps.accounts.takeGrant(tx, account, grant, at, {
      event: 'console.directory_role_changed',
      from: account.role,
      details: { groups },
    });
  }

  /**
   * The console account of a directory entry, found by its id (never by name) and given the role
   * its groups map to now; made at the first sign-in under the directory's user name, unless a
   * console account already has that name (undefined: refused rather than merged).
   */
  private async accountOf(
    user: SourceUser,
    grant: { role: ConsoleRole; scope: readonly string[] | null },
    groups: readonly string[],
  ): Promise<ConsoleAccount | undefined> {
    const { store, now } = this.deps;
    const at = now();
    const linked = await store.consoleDirectory.findAccountIdOf(user.externalId);
    const existing = linked === undefined ? undefined : await store.console.findAccountById(linked);
    if (existing !== undefined) return this.withRole(existing, grant, groups, at);
    const username = canonicalUsername(user.username);
    if (username === undefined) return undefined;
    const named = await store.console.findAccountByUsername(username);
    if (named !== undefined) {
      // Made meanwhile by this person's other sign-in, or another's account: never merged.
      const mine = (await store.consoleDirectory.externalIdOf(named.id)) === user.externalId;
      return mine ? this.withRole(named, grant, groups, at) : undefined;
    }
    try {
      return await this.deps.accounts.addSignedInElsewhere(
        {
          username,
          displayName: user.fullName.trim() === '' ? username : user.fullName.trim(),
          grant,
        },
        { directory: { externalId: user.externalId } },
        { ...(grant.scope !== null && { scope: grant.scope }), source: 'directory', groups },
        at,
      );
    } catch (error) {
      // The same person's first sign-in twice at once: the other made the account.
      const made = await store.consoleDirectory.findAccountIdOf(user.externalId);
      const other = made === undefined ? undefined : await store.console.findAccountById(made);
      if (other === undefined) throw error;
      return this.withRole(other, grant, groups, at);
    }
  }

  /** The account with the role its groups map to now, written (and audited) when it changed. */
  private async withRole(
    account: ConsoleAccount,
    grant: { role: ConsoleRole; scope: readonly string[] | null },
    groups: readonly string[],
    at: number,
  ): Promise<ConsoleAccount> {
    await this.deps.store.transaction((tx) => this.changeRole(tx, account, grant, groups, at));
    return { ...account, role: grant.role, scope: grant.scope };
  }

  /** The directory's answer, or the 503 of a directory that cannot answer (nothing was decided). */
  private async directoryAnswer<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof DirectoryUnavailableError)) throw error;
      throw serviceUnavailable(DIRECTORY_RETRY_SECONDS);
    }
  }
}
