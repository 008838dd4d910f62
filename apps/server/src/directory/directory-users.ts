import { performance } from 'node:perf_hooks';
import { BUILT_IN_LANGUAGES, type Username } from '@dea/contract';
import type { Store, User } from '../store/store.js';
import { isKnownLocale } from '../domain/identity/known-locale.js';
import { provisionedName } from '../domain/identity/people.js';
import {
  ProvisionError,
  type SourcedUser,
  type UserProvisioning,
} from '../domain/identity/provision-user.js';
import type {
  DirectoryNames,
  DirectorySignInResult,
  UserDirectory,
} from '../domain/identity/user-directory.js';
import {
  changedSinceTerm,
  fullPassReason,
  type ChangePoint,
  laterPoint,
  loadMark,
  saveMark,
  settingsDigestOf,
  type SyncMark,
} from './change-tracking.js';
import type { DirectoryConfig } from './directory-settings.js';
import type { GroupMemberships } from './group-memberships.js';
import type { DirectoryUser, LdapDirectory, SyncPage } from './ldap-directory.js';
import { readingAhead } from './reading-ahead.js';

/** Who the audit log names for changes the directory made. */
export const DIRECTORY_ACTOR = 'directory';

export interface SyncSummary {
  created: number;
  updated: number;
  disabled: number;
  unchanged: number;
  failed: { username: string; reason: string }[];
  warnings: { username: string; warning: string }[];
  /** Entries of the user filter that are no user (no user name, no id): left as they were, not disabled. */
  skipped: { dn: string; reason: string }[];
  /** Whether everyone was read (and those no longer listed disabled), and why; else only what changed. */
  full: boolean;
  fullReason: string | undefined;
  /** Directory users read and provisioned (a sync by change reads only the changed ones). */
  read: number;
}

/** How many of the directory's users in the store a full pass reads at a time. */
const STORED_PAGE = 2_000;

/** How long the languages the product knows are kept for the locale check of sign-ins. */
const LANGUAGES_CACHE_MS = 60_000;

/** The names the directory has, which no other source may take (identity/people.ts). */
export function directoryNamesOf(directory: LdapDirectory): DirectoryNames {
  return {
    hasUser: async (name) => (await directory.findUser(name, { groups: false })) !== undefined,
  };
}

/**
 * The organisation's directory as the source of users: a password is checked by the directory,
 * and the user is brought up to date from it at every sign-in and every sync (all through the one
 * provisioning rule).
 */
export class DirectoryUsers implements UserDirectory {
  /** The product groups the directory decides membership of. */
  private readonly managedGroups: readonly string[];

  private languageList: { codes: string[]; until: number } | undefined;

  constructor(
    /** The directory itself, which the console's sign-in of directory people also asks. */
    readonly directory: LdapDirectory,
    private readonly config: DirectoryConfig,
    private readonly store: Store,
    private readonly provisioning: UserProvisioning,
    private readonly options: {
      now: () => number;
      batchSize: number;
      /** The turn of the process's other work after a step that took that long (domain/bulkheads.ts RequestTurns). */
      turn: (stepMs: number) => Promise<void>;
    },
  ) {
    this.managedGroups = [...new Set(config.groups.values())];
  }

  /** The languages the product knows (its catalogs), for the directory's locales. */
  private async languages(): Promise<string[]> {
    const now = this.options.now();
    if (this.languageList === undefined || this.languageList.until <= now) {
      // The languages shipped and those an operator added.
      const codes = [
        ...new Set([
          ...BUILT_IN_LANGUAGES.map((language) => language.languageCode),
          ...(await this.store.catalogs.listLanguages()).map((language) => language.code),
        ]),
      ];
      this.languageList = { codes, until: now + LANGUAGES_CACHE_MS };
    }
    return this.languageList.codes;
  }

  /**
   * The user as provisioning takes them. A locale the product does not know is left out (the
   * user keeps the page's language rule) with a warning.
   */
  private sourced(user: DirectoryUser, languages: readonly string[], warnings: string[]): SourcedUser {
    const locale =
      user.locale === undefined || isKnownLocale(user.locale, languages) ? user.locale : undefined;
    if (locale !== user.locale)
      warnings.push(
        `locale: "${user.locale}" is no language the product knows (${languages.join(', ')}); not stored, the page's language rule applies`,
      );
    return {
      source: 'ldap',
      externalId: user.externalId,
      username: user.username,
      fullName: user.fullName,
      locale,
      timeZone: user.timeZone,
      disabled: user.disabled,
      channels: user.channels,
      groups: { managed: this.managedGroups, memberOf: user.groups },
    };
  }

  hasUser(name: Username): Promise<boolean> {
    return directoryNamesOf(this.directory).hasUser(name);
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
      if (stale?.source === 'ldap')
        await this.provisioning.disableMissing(stale, DIRECTORY_ACTOR, { managedGroups: this.managedGroups });
      return { kind: 'not-in-directory' };
    }
    await admitEntry(found.externalId);
    const known = await this.store.users.findByExternalId('ldap', found.externalId);
    const check = await this.directory.passwordCheck(found.ref, password);
    if (check.kind === 'wrong') return { kind: 'wrong-password', user: known };
    if (known === undefined) {
      const named = await this.store.users.findByUsername(provisionedName(found.username));
      if (named?.source === 'ldap' && named.externalId !== found.externalId)
        return { kind: 'entry-replaced', user: named, externalId: found.externalId };
    }
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
    const groups = await this.directory.groupsOf(found.ref);
    const { user } = await this.provisioning.provision(
      this.sourced({ ...found, groups }, await this.languages(), []),
      DIRECTORY_ACTOR,
    );
    return user;
  }

  /**
   * Brings the directory's users up to date: by change (only the entries changed since the last
   * sync's mark, and those whose mapped groups changed) or, at DEA_LDAP_FULL_SYNC_HOURS and when
   * the mark cannot be trusted, a full pass over everyone that also disables the users the
   * directory no longer lists. Group membership is read once per sync (every group and its
   * members) and nested in memory. Users are written in batches of DEA_PROVISION_BATCH_SIZE, one
   * transaction each. `progress` hears the count after each page.
   */
  async syncAll(
    progress: (seen: number) => void = () => undefined,
    options: { full?: boolean } = {},
  ): Promise<SyncSummary> {
    // One at a time in a process (the background sync, one asked by `dea directory sync`): the
    // next starts from the mark the one before saved.
    const run = this.syncing.then(() => this.syncNow(progress, options));
    this.syncing = run.catch(() => undefined);
    return run;
  }

  /** The sync under way in this process, which the next one waits for. */
  private syncing: Promise<unknown> = Promise.resolve();

  private async syncNow(progress: (seen: number) => void, options: { full?: boolean }): Promise<SyncSummary> {
    const started = this.options.now();
    const mark = await loadMark(this.store);
    const server = await this.directory.serverPoint();
    const settingsDigest = settingsDigestOf(this.config);
    const fullReason = fullPassReason(mark, {
      now: started,
      fullIntervalMs: this.config.fullSyncMs,
      settingsDigest,
      server,
      forced: options.full === true,
    });
    const previous = fullReason === undefined ? mark : undefined;
    const summary: SyncSummary = {
      created: 0,
      updated: 0,
      disabled: 0,
      unchanged: 0,
      failed: [],
      warnings: [],
      skipped: [],
      full: previous === undefined,
      fullReason,
      read: 0,
    };
    const languages = await this.languages();
    const memberships = await this.directory.groupMemberships();
    const usn = server.highestUsn !== undefined;
    // The mark is the latest change of a user read (groups are read whole each time: their digest tells).
    let latest: ChangePoint = {
      csn: previous?.kind === 'csn' ? previous.mark : undefined,
      stamp: previous?.kind === 'timestamp' ? previous.mark : undefined,
    };
    /** Ids of the entries read (users and entries left out), so that none of them is disabled. */
    const seen = new Set<string>();
    const take = async (page: SyncPage) => {
      latest = laterPoint(latest, page.latest);
      await this.write(page, memberships, languages, summary, seen);
      progress(summary.read + summary.skipped.length);
    };

    if (previous === undefined) {
      for await (const page of readingAhead(this.directory.syncPages())) await take(page);
      for await (const page of this.directoryUsersStored())
        for (const { id, externalId } of page) {
          if (externalId !== null && seen.has(externalId)) continue;
          const user = await this.store.users.findById(id);
          if (
            user !== undefined &&
            (await this.provisioning.disableMissing(user, DIRECTORY_ACTOR, {
              managedGroups: this.managedGroups,
            }))
          )
            summary.disabled += 1;
        }
    } else {
      for await (const page of readingAhead(this.directory.syncPages({ term: changedSinceTerm(previous) })))
        await take(page);
      if (this.groupsChanged(previous, memberships)) {
        const moved = await this.membershipsMoved(memberships, seen);
        for (let at = 0; at < moved.length; at += this.config.pageSize)
          await take(await this.directory.usersAt(moved.slice(at, at + this.config.pageSize)));
      }
    }
    const kind = usn ? 'usn' : latest.csn !== undefined ? 'csn' : 'timestamp';
    const next: SyncMark = {
      kind,
      mark:
        (usn ? server.highestUsn : (latest.csn ?? latest.stamp)) ??
        (previous?.kind === kind ? previous.mark : '19700101000000Z'),
      invocationId: server.invocationId,
      groupsDigest: memberships.digest(),
      settingsDigest,
      fullAt: previous?.fullAt ?? started,
    };
    await saveMark(this.store, next);
    return summary;
  }

  /**
   * The directory's users in the store, ids and external ids, a page at a time with the server's
   * other requests between pages: read in one statement, 50,000 users held the embedded store's
   * server 460 ms at once.
   */
  private async *directoryUsersStored(): AsyncGenerator<{ id: string; externalId: string | null }[]> {
    let after: string | undefined;
    for (;;) {
      const began = performance.now();
      const page = await this.store.users.externalIdsOfSource('ldap', after, STORED_PAGE);
      if (page.length === 0) return;
      await this.options.turn(performance.now() - began);
      yield page;
      after = page.at(-1)?.id;
    }
  }

  /** Whether a group's entry changed since the mark, or a group came or went. */
  private groupsChanged(mark: SyncMark, memberships: GroupMemberships): boolean {
    return memberships.digest() !== mark.groupsDigest;
  }

  /**
   * The DNs of the users (not read already) whose mapped groups in the directory differ from
   * their groups in the store: one search of every user's DN and id, and the store's members of
   * each mapped group.
   */
  private async membershipsMoved(
    memberships: GroupMemberships,
    seen: ReadonlySet<string>,
  ): Promise<string[]> {
    const externalIdOf = new Map<string, string | null>();
    for await (const page of this.directoryUsersStored())
      for (const { id, externalId } of page) externalIdOf.set(id, externalId);
    const stored = new Map<string, string[]>();
    for (const name of [...this.managedGroups].sort()) {
      const group = await this.store.groups.findByName(name);
      if (group === undefined) continue;
      for (const userId of await this.store.groups.listMembers(group.id)) {
        const externalId = externalIdOf.get(userId);
        if (externalId === undefined || externalId === null) continue;
        stored.set(externalId, [...(stored.get(externalId) ?? []), name]);
      }
    }
    const moved: string[] = [];
    for await (const page of this.directory.userIds()) {
      for (const { dn, externalId } of page) {
        if (seen.has(externalId)) continue;
        const wanted = memberships.of(dn).join('\n');
        const have = (stored.get(externalId) ?? []).sort().join('\n');
        if (wanted !== have) moved.push(dn);
      }
    }
    return moved;
  }

  /** A page's users written in batches (one transaction each), its left-out entries reported. */
  private async write(
    page: SyncPage,
    memberships: GroupMemberships,
    languages: readonly string[],
    summary: SyncSummary,
    seen: Set<string>,
  ): Promise<void> {
    for (const entry of page.skipped) {
      if (entry.externalId !== undefined) seen.add(entry.externalId);
      summary.skipped.push({ dn: entry.dn, reason: entry.reason });
    }
    for (let at = 0; at < page.users.length; at += this.options.batchSize) {
      const users = page.users.slice(at, at + this.options.batchSize);
      const warnings = users.map(() => [] as string[]);
      const inputs = users.map((user, index) =>
        this.sourced({ ...user, groups: memberships.of(user.ref) }, languages, warnings[index] as string[]),
      );
      const began = performance.now();
      const results = await this.provisioning.provisionBatch(inputs, DIRECTORY_ACTOR);
      // The embedded store answers at once, so a page's batches would run without letting the
      // server's other requests in: each batch gives them their turn.
      await this.options.turn(performance.now() - began);
      for (const [index, result] of results.entries()) {
        const user = users[index] as DirectoryUser;
        seen.add(user.externalId);
        summary.read += 1;
        for (const warning of warnings[index] ?? [])
          summary.warnings.push({ username: user.username, warning });
        if ('refused' in result) {
          summary.failed.push({ username: user.username, reason: result.refused.message });
          continue;
        }
        summary[result.provisioned.outcome] += 1;
        for (const warning of result.provisioned.warnings)
          summary.warnings.push({ username: user.username, warning });
      }
    }
  }
}
