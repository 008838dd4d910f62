import type { Username } from '@dea/contract';
import type { Store, User } from '../store/store.js';
import { ProvisionError, type SourcedUser, type UserProvisioning } from '../domain/provision-user.js';
import type { DirectorySignInResult, UserDirectory } from '../domain/user-directory.js';
import type { DirectoryConfig } from './directory-settings.js';
import type { DirectoryUser, LdapDirectory } from './ldap-directory.js';

/** Who the audit log names for changes the directory made. */
export const DIRECTORY_ACTOR = 'directory';

export interface SyncSummary {
  created: number;
  updated: number;
  disabled: number;
  unchanged: number;
  failed: { username: string; reason: string }[];
  warnings: { username: string; warning: string }[];
}

/**
 * The organisation's directory as the source of users: a password is checked by the directory,
 * and the user is brought up to date from it at every sign-in and every sync (all through the one
 * provisioning rule).
 */
export class DirectoryUsers implements UserDirectory {
  /** The product groups the directory decides membership of. */
  private readonly managedGroups: readonly string[];

  constructor(
    private readonly directory: LdapDirectory,
    config: DirectoryConfig,
    private readonly store: Store,
    private readonly provisioning: UserProvisioning,
  ) {
    this.managedGroups = [...new Set(config.groups.values())];
  }

  private sourced(user: DirectoryUser): SourcedUser {
    return {
      source: 'ldap',
      externalId: user.externalId,
      username: user.username,
      fullName: user.fullName,
      locale: user.locale,
      timeZone: user.timeZone,
      disabled: user.disabled,
      channels: user.channels,
      groups: { managed: this.managedGroups, memberOf: user.groups },
    };
  }

  async hasUser(name: Username): Promise<boolean> {
    return (await this.directory.findUser(name, { groups: false })) !== undefined;
  }

  /** What an unknown name costs: a decoy bind, as long as a real check. */
  async decoyCheck(): Promise<void> {
    await this.directory.decoyCheck();
  }

  /**
   * Checks the password by binding as the user; on success the user is refreshed from the
   * directory. A user the directory no longer has is disabled here; a name it does not have costs
   * a decoy bind, as long as a real check. The directory matches names by rules of its own (more
   * spellings than the canonical one), so `admitEntry` hears the entry found before its password
   * is checked, and may refuse it (it throws): the limits count on the entry as well as on the
   * name. Throws DirectoryUnavailableError when the directory cannot answer: never a local fallback.
   */
  async signIn(
    username: Username,
    password: string,
    admitEntry: (externalId: string) => Promise<void>,
  ): Promise<DirectorySignInResult> {
    const found = await this.directory.findUser(username, { groups: false });
    if (found === undefined) {
      await this.directory.decoyCheck();
      const stale = await this.store.users.findByUsername(username);
      if (stale?.source === 'ldap') await this.provisioning.disableMissing(stale, DIRECTORY_ACTOR);
      return { kind: 'not-in-directory' };
    }
    await admitEntry(found.externalId);
    const known = await this.store.users.findByExternalId('ldap', found.externalId);
    const check = await this.directory.passwordCheck(found.dn, password);
    if (check.kind === 'wrong') return { kind: 'wrong-password', user: known };
    if (check.kind === 'account-problem') {
      // The directory refuses the account itself (Active Directory's sub-reasons): the person is
      // brought up to date, so that the help desk finds them and the reason in their activity.
      const user = await this.provisioned(found).catch((error: unknown) => {
        if (error instanceof ProvisionError) return known;
        throw error;
      });
      return { kind: 'account-problem', user, problem: check.problem };
    }
    return { kind: 'signed-in', user: await this.provisioned(found) };
  }

  private async provisioned(found: DirectoryUser): Promise<User> {
    const groups = await this.directory.groupsOf(found.dn);
    const { user } = await this.provisioning.provision(this.sourced({ ...found, groups }), DIRECTORY_ACTOR);
    return user;
  }

  /**
   * Brings every directory user up to date, page by page: creates, updates, and disables those the
   * directory no longer lists. `progress` hears the count after each page.
   */
  async syncAll(progress: (seen: number) => void = () => undefined): Promise<SyncSummary> {
    const summary: SyncSummary = {
      created: 0,
      updated: 0,
      disabled: 0,
      unchanged: 0,
      failed: [],
      warnings: [],
    };
    const seen = new Set<string>();
    let count = 0;
    for await (const page of this.directory.allUsers()) {
      for (const entry of page) {
        seen.add(entry.externalId);
        try {
          const { outcome, warnings } = await this.provisioning.provision(
            this.sourced(entry),
            DIRECTORY_ACTOR,
          );
          summary[outcome] += 1;
          for (const warning of warnings) summary.warnings.push({ username: entry.username, warning });
        } catch (error) {
          if (!(error instanceof ProvisionError)) throw error;
          summary.failed.push({ username: entry.username, reason: error.message });
        }
      }
      count += page.length;
      progress(count);
    }
    for (const user of await this.store.users.listOfSource('ldap')) {
      if (user.externalId !== null && seen.has(user.externalId)) continue;
      if (await this.provisioning.disableMissing(user, DIRECTORY_ACTOR)) summary.disabled += 1;
    }
    return summary;
  }
}
