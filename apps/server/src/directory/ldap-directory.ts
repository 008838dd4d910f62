import { randomUUID } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { CHANNEL_KEYS, type ChannelKey } from '@dea/contract';
import { Client, InvalidCredentialsError, ResultCodeError, type Entry, type Filter } from 'ldapts';
import { normalizeDn, type DirectoryConfig, type DirectoryField } from './directory-settings.js';
import { allOf, atLeast, equals, groupsOfMember, present } from './ldap-filters.js';
import {
  DirectoryUnavailableError,
  type PasswordCheck,
  type SourceRef,
  type SourceUser,
  type UserSource,
} from '../domain/identity/user-directory.js';
import { accountProblemOf } from './active-directory-reasons.js';
import { ConnectionPool } from './ldap-pool.js';
import { loginNameFilter, type LoginNameRules } from './login-names.js';

import {
  changeAttributesOf,
  type ChangePoint,
  isActiveDirectory,
  laterPoint,
  readServerPoint,
  type ServerPoint,
} from './change-tracking.js';
import { GroupMemberships, MAX_GROUP_DEPTH, readGroups, syncNests } from './group-memberships.js';

/** Where the directory's state changes are told (the server's log; pino's logger fits). */
export interface DirectoryLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

const SILENT: DirectoryLog = { warn: () => undefined, info: () => undefined };

/** A server that took longer than DEA_LDAP_TIMEOUT_SECONDS to answer a step (connect, StartTLS, bind or search). */
class NoAnswerError extends Error {
  constructor(step: string, timeoutMs: number) {
    super(`${step}: no answer within ${timeoutMs / 1000} s (timed out)`);
    this.name = 'NoAnswerError';
  }
}

/**
 * Whether a failure means the server did not answer in time: ldapts's "Connection timeout" and
 * "Operation timed out", Node's ETIMEDOUT, or a step of ours that timed out. (A refused or reset
 * connection fails at once; a connection the server closed while idle is not a dead server.)
 */
function didNotAnswer(error: unknown): boolean {
  if (error instanceof NoAnswerError) return true;
  if ((error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return true;
  return /timed out|connection timeout/i.test((error as Error).message ?? '');
}

/**
 * `work`, or a NoAnswerError once `timeoutMs` passed without it settling; `abandon` then ends
 * what it waits on (ldapts bounds each message and the connect, not the TLS handshake of StartTLS).
 */
async function answeredWithin<T>(
  step: string,
  timeoutMs: number,
  work: Promise<T>,
  abandon: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new NoAnswerError(step, timeoutMs));
    }, timeoutMs);
  });
  // The work's own failure after the deadline is nobody's to hear.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The settings an operator checks for a URL that failed this way. */
function settingsToCheck(error: unknown): string {
  if (didNotAnswer(error)) return 'DEA_LDAP_URL and DEA_LDAP_TIMEOUT_SECONDS';
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (
    /CERT|SIGNATURE|ALTNAME|SELF_SIGNED|TLS|SSL/i.test(code) ||
    /certificate|TLS/i.test((error as Error).message)
  )
    return 'DEA_LDAP_CA_FILE and DEA_LDAP_TLS_SERVER_NAME';
  if (error instanceof ResultCodeError) return 'DEA_LDAP_URL and DEA_LDAP_STARTTLS';
  return 'DEA_LDAP_URL';
}

/** The socket of an ldapts client (not in its types): an idle kept connection must not hold the process open. */
function socketOf(client: Client): Socket | undefined {
  return (client as unknown as { socket?: Socket }).socket;
}

/** The source's reference of a user here: the entry's DN, which a bind and a group search take. */
const refOf = (dn: string): SourceRef => dn as SourceRef;

/** A user as the directory has it, in the product's terms (the domain's SourceUser). */
export type DirectoryUser = SourceUser;

/** An entry of the user filter that is no user of the product, and why. */
export interface SkippedEntry {
  dn: string;
  externalId: string | undefined;
  reason: string;
}

/** A page of a sync's reading: its users (without groups), the entries left out, the latest change seen. */
export interface SyncPage {
  users: DirectoryUser[];
  skipped: SkippedEntry[];
  /** The latest entryCSN and modifyTimestamp of the page (none on Active Directory: uSNChanged is asked of the rootDSE). */
  latest: ChangePoint;
}

/** A failure in the middle of a directory operation, as the unavailability it means. */
function unavailable(error: unknown): DirectoryUnavailableError {
  if (error instanceof DirectoryUnavailableError) return error;
  return new DirectoryUnavailableError(`the directory failed: ${(error as Error).message}`, { cause: error });
}

/** Bit 2 (ACCOUNTDISABLE) of Active Directory's userAccountControl. */
const ACCOUNT_DISABLE = 2;

function firstText(entry: Entry, attribute: string | undefined): string | undefined {
  if (attribute === undefined) return undefined;
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  if (Buffer.isBuffer(first)) return first.length === 16 ? guidText(first) : first.toString('utf8');
  const text = first.trim();
  return text === '' ? undefined : text;
}

/** objectGUID in its usual spelling (the first three groups are little-endian). */
function guidText(bytes: Buffer): string {
  const hex = (start: number, end: number, reverse: boolean) => {
    const part = Buffer.from(bytes.subarray(start, end));
    return (reverse ? part.reverse() : part).toString('hex');
  };
  return [hex(0, 4, true), hex(4, 6, true), hex(6, 8, true), hex(8, 10, false), hex(10, 16, false)].join('-');
}

function isDisabled(entry: Entry, attribute: string | undefined): boolean {
  const value = firstText(entry, attribute);
  if (value === undefined) return false;
  if (/^-?\d+$/.test(value) && attribute?.toLowerCase() === 'useraccountcontrol')
    return (Number(value) & ACCOUNT_DISABLE) !== 0;
  return /^(true|yes|1|disabled)$/i.test(value);
}

/** The host of an ldap:// or ldaps:// URL, without the brackets of an IPv6 address. */
function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The organisation's directory (LDAP or Active Directory): finds users, checks their passwords by
 * binding as them, and lists every user page by page. Each call opens its own connection to the
 * first URL that answers (failover), upgraded with StartTLS on ldap:// unless switched off.
 *
 * A URL that did not answer (refused, or no answer within the timeout at connect, StartTLS, bind
 * or search, on a new connection or a kept one) is passed over for `deadServerMs`, and the work
 * goes on at the next URL: one dead or hung domain controller first in the list costs the first
 * request that meets it one timeout, and no later one. Once that time is up, a probe in the
 * background connects, upgrades and has the server answer (a bind as the service account, or a
 * read of its root DSE), and requests go back to it only once the probe got that answer.
 */
export class LdapDirectory implements UserSource {
  /** URL -> until when it is passed over (this instance's view). */
  private readonly passedOver = new Map<string, number>();
  private readonly probing = new Set<string>();
  /** URL -> the settings its last logged failure pointed to (absent: it answered). */
  private readonly problems = new Map<string, string>();
  /** Connections bound as the service account, reused by searches (DEA_LDAP_POOL_SIZE). */
  private readonly pool: ConnectionPool<Client>;
  private readonly loginNames: LoginNameRules;
  /** The URL each connection goes to. */
  private readonly urlOf = new WeakMap<Client, string>();

  constructor(
    private readonly config: DirectoryConfig,
    private readonly now: () => number = Date.now,
    private readonly log: DirectoryLog = SILENT,
  ) {
    this.pool = new ConnectionPool<Client>(
      {
        open: () => this.open(),
        // A connection already gone is only forgotten: an unbind on it would wait out the timeout.
        close: async (client) => {
          if (socketOf(client)?.destroyed === false) await client.unbind();
        },
        // Kept while its URL is still the one to use: a URL passed over comes back once probed.
        // (ldapts does not see a connection upgraded by StartTLS close: its socket is asked too.)
        usable: (client) =>
          client.isConnected &&
          socketOf(client)?.destroyed === false &&
          this.urlOf.get(client) === this.urlsToTry()[0],
        // An LDAP result is an answer on a working connection; anything else may have broken it,
        // and a server that stopped answering in the middle is passed over as one that refused.
        broken: (error, client) => {
          if (error instanceof ResultCodeError) return false;
          this.connectionFailed(client, error);
          return true;
        },
        retryElsewhere: (client) => this.urlsToTry()[0] !== this.urlOf.get(client),
        idle: (client, idle) => {
          if (idle) socketOf(client)?.unref();
          else socketOf(client)?.ref();
        },
      },
      config.poolSize,
    );
    this.loginNames = {
      activeDirectory: config.activeDirectory,
      usernameAttribute: config.attributes.username ?? 'uid',
      netbiosDomain: config.netbiosDomain,
      realm: config.realm,
    };
  }

  /** Closes the kept connections (the server's and the CLI's end). */
  async close(): Promise<void> {
    await this.pool.close();
  }

  /**
   * A URL failed: logged at warn once, when its state changes (not per request). The state is the
   * kind of failure, told by the settings to check: a dead server fails with several messages.
   */
  private serverFailed(url: string, problem: string, check: string): void {
    if (this.problems.get(url) === check) return;
    this.problems.set(url, check);
    this.log.warn(
      { url, cause: problem, check },
      `directory ${url} cannot be used: ${problem}: check ${check}`,
    );
  }

  private serverAnswered(url: string): void {
    if (!this.problems.delete(url)) return;
    this.log.info({ url }, `directory ${url} answers again`);
  }

  private get attributeNames(): string[] {
    return [...new Set(Object.values(this.config.attributes))];
  }

  /**
   * A connection to one URL, over TLS from the start (ldaps://) or after StartTLS (ldap://). The
   * certificate is checked against DEA_LDAP_TLS_SERVER_NAME or the URL's host, an address
   * included: Node's TLS upgrade of a socket (StartTLS) otherwise checks it against "localhost".
   */
  private async connect(url: string): Promise<Client> {
    const { config } = this;
    const expected = config.tlsServerName ?? hostOf(url);
    // A fresh object each time: ldapts keeps and changes the one it is given.
    const tlsOptions = () => ({
      ...(config.ca !== undefined && { ca: config.ca }),
      minVersion: 'TLSv1.2' as const,
      // Server Name Indication carries names only (RFC 6066), never an address.
      ...(isIP(expected) === 0 && { servername: expected }),
      checkServerIdentity: (_host: string, certificate: PeerCertificate) =>
        checkServerIdentity(expected, certificate),
    });
    const secure = url.toLowerCase().startsWith('ldaps://');
    const client = new Client({
      url,
      timeout: config.timeoutMs,
      connectTimeout: config.timeoutMs,
      ...(secure && { tlsOptions: tlsOptions() }),
    });
    this.urlOf.set(client, url);
    try {
      if (!secure && config.startTls)
        await answeredWithin('StartTLS', config.timeoutMs, client.startTLS(tlsOptions()), () =>
          socketOf(client)?.destroy(),
        );
      return client;
    } catch (error) {
      await client.unbind().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A connection to `url` on which the server has answered: bound as `dn`, or (anonymous) after a
   * read of its root DSE. ldapts connects only when something is sent, so a connection that was
   * merely made proves nothing: a server that takes TCP connections and never answers is found
   * here, within the timeout, not by the work that follows.
   */
  private async reach(url: string, dn: string, password: string): Promise<Client> {
    const client = await this.connect(url);
    try {
      if (dn !== '') await client.bind(dn, password);
      else
        await client.search('', {
          scope: 'base',
          filter: present('objectClass'),
          attributes: ['supportedLDAPVersion'],
        });
      return client;
    } catch (error) {
      await client.unbind().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Work on a connection failed: a server that did not answer in time is passed over, so that the
   * next connection goes to the next URL. A connection closed or reset is only dropped by its owner.
   */
  private connectionFailed(client: Client, error: unknown): void {
    const url = this.urlOf.get(client);
    if (url === undefined || !didNotAnswer(error)) return;
    this.passOver(url);
    this.serverFailed(url, (error as Error).message, settingsToCheck(error));
  }

  /**
   * The URLs in the order to try them: those not passed over, as configured; when every one is,
   * all of them. A URL whose time is up is probed in the background and passed over meanwhile.
   */
  private urlsToTry(): string[] {
    const now = this.now();
    const live = this.config.urls.filter((url) => {
      const until = this.passedOver.get(url);
      if (until === undefined) return true;
      if (until <= now) this.probe(url);
      return false;
    });
    return live.length > 0 ? live : this.config.urls;
  }

  private passOver(url: string): void {
    this.passedOver.set(url, this.now() + this.config.deadServerMs);
  }

  /**
   * Tries a passed-over URL again without anyone waiting on it: back in use once it answered over
   * the network (connected, TLS, and a bind as the service account or a read of its root DSE; an
   * LDAP result such as a refused bind is an answer too).
   */
  private probe(url: string): void {
    if (this.probing.has(url)) return;
    this.probing.add(url);
    const { bindDn, bindPassword } = this.config;
    void this.reach(url, bindDn, bindPassword)
      .then(
        async (client) => {
          await client.unbind().catch(() => undefined);
          this.cameBack(url);
        },
        (error: unknown) => {
          if (error instanceof ResultCodeError) {
            this.cameBack(url);
            return;
          }
          this.passOver(url);
          this.serverFailed(url, (error as Error).message, settingsToCheck(error));
        },
      )
      .finally(() => this.probing.delete(url));
  }

  private cameBack(url: string): void {
    this.passedOver.delete(url);
    this.serverAnswered(url);
  }

  /**
   * A connection to the first URL that answers, bound as `dn` (none: anonymous). A refused bind
   * is thrown as ldapts's InvalidCredentialsError; no URL answering, as DirectoryUnavailableError.
   */
  private async bound(dn: string, password: string): Promise<Client> {
    const failures: string[] = [];
    for (const url of this.urlsToTry()) {
      try {
        const client = await this.reach(url, dn, password);
        this.cameBack(url);
        return client;
      } catch (error) {
        if (error instanceof InvalidCredentialsError) {
          if (dn === this.config.bindDn)
            this.serverFailed(
              url,
              `the directory refused the service account ${dn}`,
              'DEA_LDAP_BIND_DN and DEA_LDAP_BIND_PASSWORD_FILE',
            );
          else this.serverAnswered(url);
          throw error;
        }
        // A server that answered with an LDAP result is alive; one that did not answer is passed over.
        if (!(error instanceof ResultCodeError)) this.passOver(url);
        this.serverFailed(url, (error as Error).message, settingsToCheck(error));
        failures.push(`${url}: ${(error as Error).message}`);
      }
    }
    throw new DirectoryUnavailableError(
      `no directory answered (${failures.join('; ')}): check DEA_LDAP_URL, DEA_LDAP_CA_FILE, DEA_LDAP_TLS_SERVER_NAME and DEA_LDAP_STARTTLS`,
    );
  }

  /**
   * Each URL in turn, as an operator checks the settings (`dea directory test`): whether it
   * connects (with StartTLS where it applies) and takes the service account's bind, or why not.
   */
  async checkEachServer(): Promise<{ url: string; problem: string | undefined }[]> {
    const { bindDn, bindPassword } = this.config;
    // All at once: a URL that does not answer costs the timeout once, not once per URL after it.
    return Promise.all(
      this.config.urls.map(async (url) => {
        try {
          const client = await this.reach(url, bindDn, bindPassword);
          await client.unbind().catch(() => undefined);
          this.cameBack(url);
          return { url, problem: undefined };
        } catch (error) {
          if (error instanceof InvalidCredentialsError)
            return {
              url,
              problem: `the directory refused the service account ${bindDn}: check DEA_LDAP_BIND_DN and DEA_LDAP_BIND_PASSWORD_FILE`,
            };
          // What follows (a user's lookup) goes to the URLs that answered.
          if (!(error instanceof ResultCodeError)) this.passOver(url);
          return {
            url,
            problem: `${(error as Error).message}: check ${settingsToCheck(error)}`,
          };
        }
      }),
    );
  }

  /** A connection bound as the service account. */
  private async open(): Promise<Client> {
    const { bindDn, bindPassword } = this.config;
    try {
      return await this.bound(bindDn, bindPassword);
    } catch (error) {
      if (!(error instanceof InvalidCredentialsError)) throw error;
      throw new DirectoryUnavailableError(
        `the directory refused the service account ${bindDn}: check DEA_LDAP_BIND_DN and DEA_LDAP_BIND_PASSWORD_FILE`,
        { cause: error },
      );
    }
  }

  /** Work on a kept connection bound as the service account (the pool opens one when none is free). */
  private async withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.pool.use(work);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** The users of the filter changed at or after `since`: whenChanged on Active Directory, modifyTimestamp elsewhere. */
  private changedFilter(since: Date): Filter {
    const attribute = this.config.attributes.id === 'objectGUID' ? 'whenChanged' : 'modifyTimestamp';
    const generalized = since
      .toISOString()
      .replace(/[-:T]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return allOf(this.config.userFilter, atLeast(attribute, generalized));
  }

  private searchOptions(filter: Filter) {
    const binary = this.config.attributes.id === 'objectGUID' ? ['objectGUID'] : [];
    return {
      scope: 'sub' as const,
      filter,
      attributes: this.attributeNames,
      explicitBufferAttributes: binary,
    };
  }

  /**
   * The user of that name, or undefined when the directory has none (or more than one). Without
   * `groups` the group searches are skipped (`groups: []`): sign-in asks for them only once the
   * password is right.
   */
  async findUser(username: string, options: { groups?: boolean } = {}): Promise<DirectoryUser | undefined> {
    if (username.trim() === '') return undefined;
    // Every form of the name the directory knows the person by (login-names.ts).
    const byName = loginNameFilter(this.loginNames, username);
    if (byName === undefined) return undefined;
    return this.withClient(async (client) => {
      const { searchEntries } = await client.search(this.config.baseDn, {
        ...this.searchOptions(allOf(this.config.userFilter, byName)),
        sizeLimit: 2,
      });
      const [entry] = searchEntries;
      if (entry === undefined || searchEntries.length > 1) return undefined;
      return this.toUser(client, entry, options.groups ?? true);
    });
  }

  /**
   * Whether the password is the user's: a bind as the user on a connection of its own. An empty
   * password is refused before anything is sent (LDAP would take it as an anonymous bind).
   */
  async checkPassword(dn: string, password: string): Promise<boolean> {
    return (await this.passwordCheck(dn, password)).kind === 'right';
  }

  /**
   * The same bind, saying why Active Directory refused it when the account is what it refuses
   * (must change its password, locked, expired, disabled, not now or not here:
   * active-directory-reasons.ts).
   */
  async passwordCheck(dn: string, password: string): Promise<PasswordCheck> {
    if (password === '') return { kind: 'wrong' };
    let client: Client;
    try {
      client = await this.bound(dn, password);
    } catch (error) {
      if (!(error instanceof InvalidCredentialsError)) throw error;
      const problem = this.config.activeDirectory ? accountProblemOf(error.message) : undefined;
      return problem === undefined ? { kind: 'wrong' } : { kind: 'account-problem', problem };
    }
    await client.unbind().catch(() => undefined);
    return { kind: 'right' };
  }

  /**
   * A bind as nobody with a random password, for a user name the directory does not have: it
   * costs what checking a real user's password costs, so the time of an answer does not tell
   * which names exist.
   */
  async decoyCheck(): Promise<void> {
    await this.checkPassword(`cn=no-such-user-${randomUUID()},${this.config.baseDn}`, randomUUID());
  }

  /**
   * User names of the accounts Active Directory protects as administrators (adminCount=1) that the
   * user filter takes in (with DEA_LDAP_AD_PROTECTED_ADMINS; without it, none), at most `limit`.
   */
  async protectedAdmins(limit = 20): Promise<string[]> {
    return this.withClient(async (client) => {
      const { searchEntries } = await client.search(this.config.baseDn, {
        ...this.searchOptions(allOf(this.config.userFilter, equals('adminCount', '1'))),
      });
      return searchEntries
        .filter(
          (entry) => this.config.bindDn === '' || normalizeDn(entry.dn) !== normalizeDn(this.config.bindDn),
        )
        .flatMap((entry) => firstText(entry, this.config.attributes.username) ?? [])
        .slice(0, limit);
    });
  }

  /**
   * Every user of the filter, a page at a time (RFC 2696); with `changedSince`, those changed at or
   * after it. Their groups come from one read of every group (`groupMemberships`), not a search
   * per user.
   */
  async *allUsers(changedSince?: Date): AsyncGenerator<DirectoryUser[]> {
    const memberships = await this.groupMemberships();
    const term = changedSince === undefined ? undefined : this.changedFilter(changedSince);
    for await (const page of this.syncPages(term === undefined ? undefined : { filter: term }))
      yield page.users.map((user) => ({ ...user, groups: memberships.of(user.ref) }));
  }

  /** Searches the sync's side of this class has made (tests count them: none per user). */
  searches = 0;

  /** Every group with its members, read once (paged), and each DN's mapped groups in memory. */
  async groupMemberships(): Promise<GroupMemberships> {
    const { config } = this;
    const groups = await this.withClient((client) =>
      readGroups(client, {
        baseDn: config.baseDn,
        groupFilter: config.groupFilter,
        pageSize: config.pageSize,
        changeAttributes: changeAttributesOf(config),
        ranged: isActiveDirectory(config),
        count: () => (this.searches += 1),
      }),
    );
    return new GroupMemberships(groups, config.groups, syncNests(config.groupFilter, config.nestedGroups));
  }

  /** Active Directory's highest update number and the invocation id of the controller answering. */
  async serverPoint(): Promise<ServerPoint> {
    const activeDirectory = isActiveDirectory(this.config);
    if (!activeDirectory) return { invocationId: undefined, highestUsn: undefined };
    return this.withClient((client) => {
      this.searches += 2;
      return readServerPoint(client, activeDirectory);
    });
  }

  /**
   * The users of the filter (with `changed`, only those its term selects), a page at a time,
   * without groups; each page also names the entries that are no user and why, and the latest
   * change it saw (modifyTimestamp or uSNChanged).
   */
  async *syncPages(changed?: { filter?: Filter; term?: Filter }): AsyncGenerator<SyncPage> {
    const client = await this.open();
    const changeAttributes = changeAttributesOf(this.config);
    try {
      const filter =
        changed?.filter ??
        (changed?.term === undefined ? this.config.userFilter : allOf(this.config.userFilter, changed.term));
      this.searches += 1;
      const pages = client.searchPaginated(this.config.baseDn, {
        ...this.searchOptions(filter),
        attributes: [...this.attributeNames, ...changeAttributes],
        paged: { pageSize: this.config.pageSize },
      });
      for await (const page of pages) yield this.pageOf(page.searchEntries);
    } catch (error) {
      this.connectionFailed(client, error);
      throw unavailable(error);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** The entries at these DNs (one base search each), as a page of the sync. */
  async usersAt(dns: readonly string[]): Promise<SyncPage> {
    const changeAttributes = changeAttributesOf(this.config);
    return this.withClient(async (client) => {
      const entries: Entry[] = [];
      for (const dn of dns) {
        this.searches += 1;
        try {
          const { searchEntries } = await client.search(dn, {
            ...this.searchOptions(this.config.userFilter),
            scope: 'base',
            attributes: [...this.attributeNames, ...changeAttributes],
          });
          entries.push(...searchEntries);
        } catch (error) {
          // Gone since the groups were read: the next full pass disables them.
          if (error instanceof ResultCodeError && error.code === 32) continue;
          throw error;
        }
      }
      return this.pageOf(entries);
    });
  }

  /** Every user's DN and id, a page at a time: only these two attributes are read. */
  async *userIds(): AsyncGenerator<{ dn: string; externalId: string }[]> {
    const client = await this.open();
    try {
      this.searches += 1;
      const pages = client.searchPaginated(this.config.baseDn, {
        ...this.searchOptions(this.config.userFilter),
        attributes: [this.config.attributes.id as string],
        paged: { pageSize: this.config.pageSize },
      });
      for await (const page of pages) {
        const ids: { dn: string; externalId: string }[] = [];
        for (const entry of page.searchEntries) {
          const externalId = firstText(entry, this.config.attributes.id);
          if (externalId !== undefined) ids.push({ dn: entry.dn, externalId });
        }
        yield ids;
      }
    } catch (error) {
      this.connectionFailed(client, error);
      throw unavailable(error);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  private pageOf(entries: readonly Entry[]): SyncPage {
    const page: SyncPage = { users: [], skipped: [], latest: { csn: undefined, stamp: undefined } };
    for (const entry of entries) {
      page.latest = laterPoint(page.latest, {
        csn: firstText(entry, 'entryCSN'),
        stamp: firstText(entry, 'modifyTimestamp'),
      });
      const read = this.entryToUser(entry);
      if ('user' in read) {
        if (read.user !== undefined) page.users.push(read.user);
      } else {
        page.skipped.push(read.skipped);
      }
    }
    return page;
  }

  /** The mapped groups of a DN's entry, searched for it alone (sign-in: one user). */
  async groupsOf(dn: string): Promise<string[]> {
    return this.withClient((client) => this.productGroupsOf(client, dn));
  }

  private async toUser(client: Client, entry: Entry, withGroups = true): Promise<DirectoryUser | undefined> {
    const read = this.entryToUser(entry);
    if (!('user' in read) || read.user === undefined) return undefined;
    return { ...read.user, groups: withGroups ? await this.productGroupsOf(client, entry.dn) : [] };
  }

  /**
   * An entry as a user without groups; the service account as none (undefined); an entry that
   * cannot be one (no id, no user name) as skipped, saying why.
   */
  private entryToUser(entry: Entry): { user: DirectoryUser | undefined } | { skipped: SkippedEntry } {
    const { attributes } = this.config;
    const text = (field: DirectoryField) => firstText(entry, attributes[field]);
    const externalId = text('id');
    const username = text('username');
    if (externalId === undefined)
      return {
        skipped: {
          dn: entry.dn,
          externalId,
          reason: `no value for the id attribute ${attributes.id ?? 'id'} (DEA_LDAP_ATTRIBUTES): left out`,
        },
      };
    if (username === undefined)
      return {
        skipped: {
          dn: entry.dn,
          externalId,
          reason: `no value for the user-name attribute ${attributes.username ?? 'username'} (DEA_LDAP_ATTRIBUTES): left as it was, not disabled`,
        },
      };
    // The service account searches the directory; it is never a user of the product, whatever
    // the filter takes in.
    if (this.config.bindDn !== '' && normalizeDn(entry.dn) === normalizeDn(this.config.bindDn))
      return { user: undefined };
    const channels: Partial<Record<ChannelKey, string | null>> = {};
    for (const key of CHANNEL_KEYS) if (attributes[key] !== undefined) channels[key] = text(key) ?? null;
    return {
      user: {
        ref: refOf(entry.dn),
        externalId,
        username,
        fullName: text('fullName') ?? username,
        locale: text('locale'),
        timeZone: text('timeZone'),
        disabled: isDisabled(entry, attributes.disabled),
        channels,
        groups: [],
      },
    };
  }

  /**
   * Every directory group a DN's entry is in (nested ones as DEA_LDAP_NESTED_GROUPS says), each
   * DN in normalizeDn's spelling: what DEA_CONSOLE_LDAP_ROLES maps to console roles.
   */
  async groupDnsOf(dn: string): Promise<string[]> {
    return this.withClient(async (client) => [...(await this.groupKeysOf(client, dn))].sort());
  }

  /** The mapped groups a DN belongs to, following nested groups up to ten levels. */
  private async productGroupsOf(client: Client, dn: string): Promise<string[]> {
    const { groups } = this.config;
    if (groups.size === 0) return [];
    const seen = await this.groupKeysOf(client, dn);
    return [...new Set([...seen].flatMap((key) => groups.get(key) ?? []))].sort();
  }

  /** The normalized DNs of the groups a DN belongs to, following nested groups up to ten levels. */
  private async groupKeysOf(client: Client, dn: string): Promise<Set<string>> {
    const { groupFilter, nestedGroups, baseDn } = this.config;
    const seen = new Set<string>();
    let members = [dn];
    for (let depth = 0; depth < MAX_GROUP_DEPTH && members.length > 0; depth += 1) {
      const next: string[] = [];
      for (const member of members) {
        const filter = groupsOfMember(groupFilter, member);
        const { searchEntries } = await client.search(baseDn, { scope: 'sub', filter, attributes: ['1.1'] });
        for (const group of searchEntries) {
          const key = normalizeDn(group.dn);
          if (seen.has(key)) continue;
          seen.add(key);
          next.push(group.dn);
        }
      }
      if (!nestedGroups) break;
      members = next;
    }
    return seen;
  }
}
