import { type BrandingEntry, type ChannelKey, CONSOLE_ROLE_NAMES, type Username } from '@dea/contract';
import type { AuditEventName } from '../domain/audit-events.js';
import type { SchemaState } from './schema.js';

/**
 * The store contract. Two implementations pass one test suite (store.suite.ts): the embedded
 * SQLite file and PostgreSQL. Every method that decides something under concurrency does so
 * atomically in the database, so any number of server instances behave as one.
 */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly users: UserRepository;
  readonly groups: GroupRepository;
  readonly channels: ChannelRepository;
  readonly codes: CodeRepository;
  readonly sessions: SessionRepository;
  readonly branding: BrandingRepository;
  readonly catalogs: CatalogRepository;
  readonly audit: AuditRepository;
  /** The audit trail's order, chain and export positions (ADR 0018). */
  readonly auditTrail: AuditTrailRepository;
  readonly outbox: OutboxRepository;
  readonly serviceKeys: ServiceKeyRepository;
  readonly meta: MetaRepository;
  /** What the retention purge removes, and the lease that lets one instance purge at a time. */
  readonly retention: RetentionRepository;
  readonly leases: LeaseRepository;
  /** What was made with the store's secret before it was replaced (dea secret status). */
  readonly secretUsage: SecretUsageRepository;
  readonly signinFailures: SigninFailureRepository;
  readonly rateCounters: RateCounterRepository;
  readonly verifyFailures: VerifyFailureRepository;
  /** The console's accounts, passkeys and sessions. */
  readonly console: ConsoleRepository;
  /** The store's schema: which migrations it has had, and bringing it up to date. */
  readonly schema: {
    state(): Promise<SchemaState>;
    /** What would stop the pending migrations (names that collide, say), found without changing anything. */
    problems(pending: readonly string[]): Promise<string[]>;
    /** Applies what is pending; answers the migrations applied. */
    migrate(): Promise<string[]>;
  };
  /**
   * Runs `work` in one transaction: every call it makes on the store it is given commits together
   * or not at all (an error thrown by `work` rolls everything back). Inside a transaction, another
   * call runs in the same one.
   */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** Answers when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface User {
  id: string;
  /** Canonical (RFC 8265): the one spelling every door compares, limits and audits. */
  username: Username;
  passwordHash: string;
  fullName: string;
  locale: string;
  disabled: boolean;
  createdAt: number;
  lastLoginAt: number | null;
  currentLoginAt: number | null;
  /** IANA time zone of times in the user's messages; null: the deployment's DEA_TIME_ZONE. */
  timeZone: string | null;
  /** Where the user comes from; only local users have a password of their own. */
  source: UserSource;
  /** The source's own id of the user (directory entryUUID/objectGUID, SCIM id); null for local users. */
  externalId: string | null;
}

export const USER_SOURCES = ['local', 'ldap', 'scim', 'import'] as const;
export type UserSource = (typeof USER_SOURCES)[number];

export interface NewUser {
  id: string;
  username: Username;
  passwordHash: string;
  fullName: string;
  locale: string;
  createdAt: number;
  timeZone?: string | null;
  source?: UserSource;
  externalId?: string | null;
}

export interface UserRepository {
  create(user: NewUser): Promise<void>;
  findById(id: string): Promise<User | undefined>;
  /**
   * The user, read for a change within a transaction: their row stays locked until it ends, so
   * that of two writers at once the second reads what the first wrote (FOR UPDATE on PostgreSQL;
   * the embedded store runs one writing transaction at a time).
   */
  findForChange(id: string): Promise<User | undefined>;
  findByUsername(username: Username): Promise<User | undefined>;
  findByExternalId(source: UserSource, externalId: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  listOfSource(source: UserSource): Promise<User[]>;
  update(
    id: string,
    changes: Partial<
      Pick<
        User,
        | 'username'
        | 'fullName'
        | 'locale'
        | 'disabled'
        | 'passwordHash'
        | 'timeZone'
        | 'source'
        | 'externalId'
      >
    >,
  ): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  /** The current sign-in becomes the last one; answers the user as it is afterwards. */
  recordSignIn(id: string, at: number): Promise<User | undefined>;
  count(): Promise<number>;
  /** Replaces the hash only while it is still `current` (a rehash never undoes a password change). */
  replacePasswordHash(id: string, current: string, next: string): Promise<boolean>;
  /** The password-hash cost most users' hashes have; undefined without users. */
  mostCommonPasswordCost(): Promise<number | undefined>;
}

export interface Group {
  id: string;
  name: string;
  priority: number;
  /** Who owns it: 'local' (an operator), or the source that made it or was handed it. */
  source: UserSource;
}

export interface GroupRepository {
  /** Without a source, the group is an operator's ('local'). */
  create(group: Omit<Group, 'source'> & { source?: UserSource }): Promise<void>;
  findByName(name: string): Promise<Group | undefined>;
  /** Answers whether the group exists; a name another group has is refused. */
  rename(id: string, name: string): Promise<boolean>;
  list(): Promise<Group[]>;
  /** Gives the group to another owner; answers whether the group exists. */
  setSource(id: string, source: UserSource): Promise<boolean>;
  /** Answers whether the user joined now (false: a member already). */
  addMember(groupId: string, userId: string): Promise<boolean>;
  /** Answers whether the user left now (false: no member). */
  removeMember(groupId: string, userId: string): Promise<boolean>;
  setPolicy(groupId: string, category: string, options: Record<string, unknown>): Promise<void>;
  /** The policy options of the user's highest-priority group that has one for the category. */
  findPolicyOfUser(userId: string, category: string): Promise<Record<string, unknown> | undefined>;
  /** The group's policies, by category name. */
  listPolicies(groupId: string): Promise<{ category: string; options: Record<string, unknown> }[]>;
  /** The ids of the group's members. */
  listMembers(groupId: string): Promise<string[]>;
  /** The groups the user is a member of. */
  listOfUser(userId: string): Promise<Group[]>;
}

export interface Channel {
  /** The opaque recipient reference. */
  id: string;
  userId: string;
  key: ChannelKey;
  address: string;
}

export interface ChannelRepository {
  /**
   * Sets the user's channel of that key. Its reference stays while the address stays; a new
   * address gets the new reference, so a page still holding the old one cannot send to it.
   */
  set(channel: Channel & { createdAt: number }): Promise<Channel>;
  listOfUser(userId: string): Promise<Channel[]>;
  findOfUser(userId: string, reference: string): Promise<Channel | undefined>;
  remove(userId: string, key: ChannelKey): Promise<boolean>;
  /** The ids of users with a channel whose address ends in these digits (at most `limit`). */
  findUserIdsByAddressEnding(digits: string, limit: number): Promise<string[]>;
}

export interface NewCode {
  id: string;
  userId: string;
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  uses: number;
  channelType: string | null;
}

export interface ActiveCode {
  id: string;
  codeHash: string;
  /** The send type it went to; null when it was shown on screen. */
  channelType: string | null;
  createdAt: number;
  expiresAt: number;
  usesLeft: number;
}

export type IssueOutcome = { issued: true } | { issued: false; reason: 'store-full' | 'no-user' };

export interface CodeRepository {
  /**
   * Inserts the code only when the user holds fewer than `maxUnused` usable codes, decided
   * atomically (the user's row is locked for the decision), and writes the audit entry in the
   * same transaction.
   */
  issue(code: NewCode, maxUnused: number, audit: NewAuditEntry): Promise<IssueOutcome>;
  /** Usable codes: not expired, not invalidated, with uses left. */
  listActive(userId: string, now: number): Promise<ActiveCode[]>;
  countActive(userId: string, now: number): Promise<number>;
  /** Takes one use of the code when it still has one; true when this call got it. */
  consume(codeId: string, now: number): Promise<boolean>;
  /**
   * Gives back one use taken by `consume` whose answer never reached its client (it left); true
   * when the code had been used, and is not taken out of use.
   */
  giveBackUse(codeId: string): Promise<boolean>;
  /** Takes the code out of use; true when this call did (false: already taken out). */
  invalidate(codeId: string, now: number): Promise<boolean>;
}

/** A session with its user (undefined when the user is gone). */
export type SessionWithUser = Session & { user: User | undefined };

export interface Session {
  idHash: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
}

export interface SessionRepository {
  create(session: Omit<Session, 'endedAt'>): Promise<void>;
  /** The session with its user (undefined when the user is gone), in one query: every signed-in call asks. */
  find(idHash: string): Promise<SessionWithUser | undefined>;
  touch(idHash: string, at: number): Promise<void>;
  end(idHash: string, at: number): Promise<void>;
  /** The user's sessions that have not ended, newest first. */
  listOpenOfUser(userId: string): Promise<Session[]>;
  /** Ends every open session of the user; answers how many. */
  endAllOfUser(userId: string, at: number): Promise<number>;
}

export interface BrandingRepository {
  list(): Promise<BrandingEntry[]>;
  set(entry: BrandingEntry): Promise<void>;
  /** Adds the entries that are missing; keeps what an operator changed. */
  ensure(entries: BrandingEntry[]): Promise<void>;
}

export interface CatalogRepository {
  listLanguages(): Promise<{ code: string; name: string }[]>;
  setLanguage(code: string, name: string): Promise<void>;
  /** Adds the language unless one of its code exists; true when this call added it. */
  addLanguage(code: string, name: string): Promise<boolean>;
  messages(languageCode: string): Promise<Record<string, string>>;
  /** Writes the texts; `overwrite: false` adds only the missing keys. */
  putMessages(
    languageCode: string,
    texts: Record<string, string>,
    options: { overwrite: boolean },
  ): Promise<void>;
}

export interface NewAuditEntry {
  /** Given by the caller when others must know it (the audit export); else made when written. */
  id?: string;
  event: AuditEventName;
  userId?: string | null;
  actor?: string | null;
  clientAddress?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  at: number;
  event: string;
  userId: string | null;
  actor: string | null;
  clientAddress: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  userId?: string;
  event?: string;
  actor?: string;
  /** From this time on (inclusive). */
  since?: number;
  /** Before this time (exclusive). */
  until?: number;
  /** Only entries older than this one (a page's last entry): the next page. */
  after?: { at: number; id: string };
  limit?: number;
}

export interface AuditRepository {
  append(entry: NewAuditEntry, at: number): Promise<void>;
  list(filter: AuditFilter): Promise<AuditEntry[]>;
}

export interface OutboxMessage {
  id: string;
  createdAt: number;
  channelType: string;
  userId: string | null;
  idempotencyKey: string;
  sealed: string;
}

export interface OutboxRepository {
  /** Replaces a message's sealed content (sealed again with the current key), unless it changed meanwhile. */
  reseal(id: string, from: string, to: string): Promise<boolean>;
  /** False when a message with that idempotency key is already there. */
  add(message: OutboxMessage): Promise<boolean>;
  /** Newest first; only the user's messages when a user id is given. */
  list(limit: number, userId?: string): Promise<OutboxMessage[]>;
}

export interface ServiceKey {
  id: string;
  name: string;
  keyHash: string;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
  /** When keyHash was made with the secret of that time (its creation, or a re-hash after a rotation). */
  hashedAt: number;
}

export interface ServiceKeyRepository {
  create(key: ServiceKey): Promise<void>;
  /** Replaces the key's hash by one of the current secret, unless another call did first. */
  rehash(id: string, from: string, to: string, at: number): Promise<void>;
  findById(id: string): Promise<ServiceKey | undefined>;
  list(): Promise<ServiceKey[]>;
  revoke(id: string, at: number): Promise<boolean>;
}

export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /** Writes the value unless the key has one; answers the value the store holds afterwards. */
  setIfAbsent(key: string, value: string): Promise<string>;
}

export interface SigninFailures {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number | null;
}

/**
 * One limit on sign-in attempts for one subject (a user name, a client address, or both). An
 * attempt is counted before its password is checked, so however many arrive at once, at most
 * `max` are checked before the subject locks.
 */
export interface SigninAttemptLimit {
  subject: string;
  /** Counted attempts within the window; the attempt that reaches it locks the subject. */
  max: number;
  /** Attempts older than this are forgotten: counting starts again. */
  windowMs: number;
  /** How long the subject stays locked once `attempts` (at least `max`) are counted. */
  lockMsAt(attempts: number): number;
  /**
   * When set, this subject's lock refuses only attempts for which that other subject has failures
   * counted within the window; any other attempt is admitted and counted, and the lock stays as it
   * is. The per-address rule: it slows down the user names that failed from the address and never
   * refuses one that has not.
   */
  refusesOnlyAfterFailuresOf?: string;
}

export type SigninReservation = { allowed: true } | { allowed: false; subject: string; retryAfterMs: number };

export interface SigninFailureRepository {
  find(subject: string): Promise<SigninFailures | undefined>;
  /**
   * Counts one attempt against every limit in one transaction, or none when any subject is
   * locked: atomic across instances, so a refused attempt never reaches the password check.
   */
  reserve(limits: readonly SigninAttemptLimit[], at: number): Promise<SigninReservation>;
  /** Takes back one counted attempt (its password was right, or never checked) and the lock it caused. */
  release(subject: string, max: number): Promise<void>;
  clear(subject: string): Promise<void>;
}

/** One counter of a limit: at most `max` takes within a window that starts with the first take. */
export interface RateLimit {
  subject: string;
  max: number;
  windowMs: number;
}

export type RateTake = { allowed: true } | { allowed: false; subject: string; retryAfterMs: number };

export interface RateCounterRepository {
  /**
   * Takes one unit of every limit in one transaction, or none when any of them is used up:
   * a refused request never uses up another limit. Atomic across instances.
   */
  take(limits: readonly RateLimit[], at: number): Promise<RateTake>;
}

export interface VerifyFailures {
  /** Consecutive failed verifications: a success clears them, a new code does not. */
  failures: number;
  lastFailureAt: number;
  /** When the lock started; null while not locked. */
  lockedAt: number | null;
  /** When the lock ends; null with lockedAt set: until an operator unlocks. */
  lockedUntil: number | null;
}

export interface VerifyFailureRule {
  /** At this many consecutive failures the user is locked. */
  lockAfter: number;
  /** How long a lock lasts; null: until an operator unlocks. */
  lockMs: number | null;
}

export interface VerifyFailureRepository {
  find(userId: string): Promise<VerifyFailures | undefined>;
  /**
   * Counts one failure atomically (across instances) and starts the lock when the rule says so;
   * a lock that has run out starts a new count. Answers the new state; undefined when no user has
   * this id (nothing is counted, and the store did the same work).
   */
  record(userId: string, at: number, rule: VerifyFailureRule): Promise<VerifyFailures | undefined>;
  /** Forgets the user's failures and ends a lock; true when there was something to forget. */
  clear(userId: string): Promise<boolean>;
}

export const CONSOLE_ROLES = CONSOLE_ROLE_NAMES;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export interface ConsoleAccount {
  id: string;
  /** Canonical (RFC 8265), like a user's. */
  username: Username;
  displayName: string;
  role: ConsoleRole;
  passwordHash: string;
  disabled: boolean;
  createdAt: number;
}

export interface ConsolePasskey {
  /** base64url */
  credentialId: string;
  accountId: string;
  /** base64url of the COSE public key */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: number;
  lastUsedAt: number | null;
}

export interface ConsoleSession {
  idHash: string;
  accountId: string;
  xsrfHash: string;
  challenge: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** When the passkey was last verified in this session; null: the password only. */
  passkeyAt: number | null;
  endedAt: number | null;
}

export interface ConsoleRepository {
  createAccount(account: Omit<ConsoleAccount, 'disabled'>): Promise<void>;
  findAccountById(id: string): Promise<ConsoleAccount | undefined>;
  findAccountByUsername(username: Username): Promise<ConsoleAccount | undefined>;
  listAccounts(): Promise<ConsoleAccount[]>;
  updateAccount(
    id: string,
    changes: Partial<Pick<ConsoleAccount, 'disabled' | 'passwordHash' | 'role'>>,
  ): Promise<boolean>;
  /** With its passkeys and sessions. */
  removeAccount(id: string): Promise<boolean>;
  addPasskey(passkey: ConsolePasskey): Promise<void>;
  listPasskeys(accountId: string): Promise<ConsolePasskey[]>;
  findPasskey(credentialId: string): Promise<ConsolePasskey | undefined>;
  /**
   * Records a use of the passkey when the authenticator's counter moved on (or both are 0, for
   * authenticators without one): false for a counter that did not, a sign of a cloned key.
   */
  usePasskey(credentialId: string, counter: number, at: number): Promise<boolean>;
  removePasskeys(accountId: string): Promise<number>;
  createSession(session: Omit<ConsoleSession, 'challenge' | 'passkeyAt' | 'endedAt'>): Promise<void>;
  findSession(idHash: string): Promise<ConsoleSession | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  setChallenge(idHash: string, challenge: string): Promise<void>;
  /** The challenge of the ceremony under way, taken once: a second taker gets undefined. */
  takeChallenge(idHash: string): Promise<string | undefined>;
  markPasskey(idHash: string, at: number): Promise<void>;
  endSession(idHash: string, at: number): Promise<void>;
  endSessionsOf(accountId: string, at: number): Promise<number>;
  /** Keeps a new enrolment link of the account; its earlier links that were not used are removed. */
  addEnrolmentLink(link: Omit<ConsoleEnrolmentLink, 'usedAt'>): Promise<void>;
  /** The link of one of these hashes (one per accepted key), used or not. */
  findEnrolmentLink(tokenHashes: readonly string[]): Promise<ConsoleEnrolmentLink | undefined>;
  /**
   * Uses the link once: true for the one caller that found it unused, unexpired at `at` and of
   * that account; false for every other (a second use, even at the same moment, included).
   */
  useEnrolmentLink(tokenHashes: readonly string[], accountId: string, at: number): Promise<boolean>;
}

export interface ConsoleEnrolmentLink {
  tokenHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

/** The kinds of rows the retention purge removes (domain/retention.ts says when each may go). */
export const PURGE_KINDS = [
  'codes',
  'sessions',
  'consoleSessions',
  'signinFailures',
  'rateCounters',
  'audit',
  'outbox',
] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

/** Times before which rows may go; null: that kind is kept for ever. */
export interface PurgeCutoffs {
  now: number;
  /** Sessions that ended, were last seen, or started before these. */
  sessionsEndedBefore: number;
  sessionsLastSeenBefore: number;
  sessionsStartedBefore: number;
  consoleSessionsEndedBefore: number;
  consoleSessionsLastSeenBefore: number;
  /** Sign-in failure subjects not locked whose last failure came before this. */
  signinFailuresBefore: number;
  auditBefore: number | null;
  /**
   * Audit entries go only up to this place of the trail (sealed, older than auditBefore, received
   * by every export destination); absent: by time alone.
   */
  auditThroughSeq?: number;
  outboxBefore: number | null;
}

export interface RetentionRepository {
  /** How many rows of the kind may go now. */
  count(kind: PurgeKind, cutoffs: PurgeCutoffs): Promise<number>;
  /** Removes at most `limit` rows of the kind that may go, in one short statement; answers how many. */
  removeBatch(kind: PurgeKind, cutoffs: PurgeCutoffs, limit: number): Promise<number>;
}

export interface LeaseRepository {
  /**
   * Takes or extends the lease until `until`: true when it was free, ran out before `now`, or is
   * the holder's own. Atomic across instances.
   */
  take(name: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Who holds the lease and until when, if anyone does. */
  find(name: string): Promise<{ holder: string; until: number } | undefined>;
  release(name: string, holder: string): Promise<void>;
}

/** What still depends on a secret replaced at `before`. */
export interface SecretUsage {
  /** Unused codes issued before, and when the last of them expires. */
  codes: { count: number; lastExpiresAt: number | null };
  /** Open sessions started before, and when the last of them started. */
  sessions: { count: number; lastStartedAt: number | null };
}

export interface SecretUsageRepository {
  madeBefore(before: number, now: number, sessionsStartedAfter: number): Promise<SecretUsage>;
}

/** An audit entry as sealed in the trail (ADR 0018). */
export interface SealedAuditEntry extends AuditEntry {
  seq: number;
  chain: string;
  /** The fingerprint of the secret whose key made the chain value. */
  chainKey: string;
  /** The details exactly as stored, which the chain value covers. */
  detailsText: string;
}

/** The head of the chain ('head') or a checkpoint ('checkpoint:<seq>'), signed. */
export interface AuditChainMark {
  name: string;
  seq: number;
  chain: string;
  /** 'head', 'purge' or 'rotation'. */
  reason: string;
  at: number;
  chainKey: string;
  mac: string;
}

/** How the store seals: the key's fingerprint, the chain value of an entry, the MAC of a mark. */
export interface AuditSealer {
  chainKey: string;
  chainOf(previous: string, entry: Omit<SealedAuditEntry, 'chain' | 'chainKey'>): string;
  macOf(mark: Omit<AuditChainMark, 'mac' | 'chainKey'>): string;
}

/**
 * The audit trail's one order and chain. Entries are written unsealed in the transaction of
 * their change (by any writer); `seal` gives the oldest unsealed ones the next places of the
 * trail and their chain values, in a transaction that holds the head of the chain, so that any
 * number of sealers (instances, the CLI) extend one chain without forks.
 */
export interface AuditTrailRepository {
  /** Seals at most `limit` entries; answers how many. */
  seal(sealer: AuditSealer, limit: number, now: number): Promise<number>;
  /** Sealed entries after `seq`, in the trail's order. */
  sealedAfter(seq: number, limit: number): Promise<SealedAuditEntry[]>;
  /** The first sealed entry written at or after `at`. */
  firstSealedSince(at: number): Promise<number | undefined>;
  unsealedCount(): Promise<number>;
  /** The head and every checkpoint. */
  marks(): Promise<AuditChainMark[]>;
  addCheckpoint(mark: AuditChainMark): Promise<void>;
  /** The last sealed place (0: none). */
  lastSeq(): Promise<number>;
  /**
   * The runs of consecutive sealed places, up to `throughSeq`, whose entries were all written
   * before `before`: what the purge may remove, each run with the chain value of its last entry.
   */
  removableRuns(
    before: number,
    throughSeq: number,
  ): Promise<{ fromSeq: number; toSeq: number; chain: string }[]>;
  /** The last place each destination received (0 when it never received any). */
  positions(destinations: readonly string[]): Promise<Map<string, number>>;
  setPosition(destination: string, seq: number, at: number): Promise<void>;
}
