import type { SchemaState } from './schema.js';
import type { AuditRepository } from './sql/audit.js';
import type { ReportRepository } from './sql/reports.js';
import type { AuditTrailRepository } from './sql/audit-trail.js';
import type { BrandingRepository } from './sql/branding.js';
import type { BulkUserRepository } from './sql/bulk-users.js';
import type { CatalogRepository } from './sql/catalogs.js';
import type { ChannelRepository } from './sql/channels.js';
import type { ChannelProofRepository } from './sql/channel-proofs.js';
import type { RegistrationRepository } from './sql/registration.js';
import type { UserPasskeyRepository } from './sql/user-passkeys.js';
import type { RememberedDeviceRepository } from './sql/remembered-devices.js';
import type { RegistrationOidcLinkRepository } from './sql/registration-oidc-links.js';
import type { CodeRepository } from './sql/codes.js';
import type { ConsoleRepository } from './sql/console.js';
import type { ConsoleDirectoryRepository } from './sql/console-directory.js';
import type { ConsoleOidcRepository } from './sql/console-oidc.js';
import type { PasswordLinkRepository } from './sql/password-links.js';
import type { ConsolePasskeyRepository } from './sql/console-passkeys.js';
import type { GroupRepository } from './sql/groups.js';
import type { MetaRepository } from './sql/meta.js';
import type { OutboxRepository } from './sql/outbox.js';
import type { RateCounterRepository } from './sql/rate-counters.js';
import type { LeaseRepository, RetentionRepository, SecretUsageRepository } from './sql/retention.js';
import type { ServiceKeyRepository } from './sql/service-keys.js';
import type { SessionRepository } from './sql/sessions.js';
import type { SigninFailureRepository } from './sql/signin-failures.js';
import type { UserRepository } from './sql/users.js';
import type { VerifyAnswerRepository } from './sql/verify-answers.js';
import type { VerifyFailureRepository } from './sql/verify-failures.js';

/*
 * Each repository's interface and types live beside its implementation in sql/; they are
 * re-exported here so that everything else imports the store's types from this one module.
 */
export type { NewAuditEntry, AuditEntry, AuditFilter, AuditRepository } from './sql/audit.js';
export type {
  OffsetSpan,
  ReportCount,
  ReportDimension,
  ReportMetric,
  ReportPeriod,
  ReportRepository,
} from './sql/reports.js';
export type {
  SealedAuditEntry,
  WrittenAuditEntry,
  RefusedAuditEntry,
  StampJudgement,
  SealFinding,
  AuditChainMark,
  AuditSealer,
  AuditTrailRepository,
} from './sql/audit-trail.js';
export type { BrandingRepository } from './sql/branding.js';
export type { BulkUserRepository, KnownUser, NewBatchUser, NewUsersBatch } from './sql/bulk-users.js';
export type { CatalogRepository } from './sql/catalogs.js';
export type { Channel, ChannelOrigin, ChannelRepository, ProvenChannel } from './sql/channels.js';
export type {
  BlockedAddress,
  ChannelProof,
  ChannelUndoLink,
  ChannelProofRepository,
} from './sql/channel-proofs.js';
export type { RegistrationSession, RegistrationRepository } from './sql/registration.js';
export type { UserPasskey, UserPasskeyRepository } from './sql/user-passkeys.js';
export type { RememberedDevice, RememberedDeviceRepository } from './sql/remembered-devices.js';
export type { RegistrationOidcLink, RegistrationOidcLinkRepository } from './sql/registration-oidc-links.js';
export type { NewCode, ActiveCode, IssueOutcome, CodeRepository, VerifyPolicy } from './sql/codes.js';
export type {
  ConsoleRole,
  ConsoleAccount,
  ConsolePasskey,
  ConsoleSession,
  ConsoleRepository,
  ConsoleEnrolmentLink,
} from './sql/console.js';
export { CONSOLE_ROLES } from './sql/console.js';
export type {
  AuditedGroupWrite,
  Group,
  GroupFilterColumn,
  GroupRepository,
  GroupWrite,
} from './sql/groups.js';
export type { CompareOp, RowFilter, RowOrder } from './sql/row-filter.js';
export type { MetaRepository } from './sql/meta.js';
export type { OutboxMessage, OutboxRepository } from './sql/outbox.js';
export type { RateLimit, RateTake, RateCounterRepository } from './sql/rate-counters.js';
export type {
  PurgeKind,
  PurgeCutoffs,
  RetentionRepository,
  LeaseRepository,
  SecretUsage,
  SecretUsageRepository,
} from './sql/retention.js';
export { PURGE_KINDS } from './sql/retention.js';
export type { ServiceKey, ServiceKeyRepository } from './sql/service-keys.js';
export type { SessionWithUser, Session, SessionRepository, StoredPolicyPair } from './sql/sessions.js';
export type {
  SigninFailures,
  SigninAttemptLimit,
  SigninReservation,
  SigninFailureRepository,
} from './sql/signin-failures.js';
export type { User, UserFilterColumn, UserSource, NewUser, UserRepository } from './sql/users.js';
export { USER_SOURCES } from './sql/users.js';
export type { VerifyFailures, VerifyFailureRule, VerifyFailureRepository } from './sql/verify-failures.js';
export type { KeyClaim, VerifyAnswerRepository } from './sql/verify-answers.js';

/**
 * The store contract. Two implementations pass one test suite (store.test.ts, suite/): the embedded
 * SQLite file and PostgreSQL. Every method that decides something under concurrency does so
 * atomically in the database, so any number of server instances behave as one.
 */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly users: UserRepository;
  /** Many new users at once (the batches of the sync and the import), inside a transaction. */
  readonly bulkUsers: BulkUserRepository;
  readonly groups: GroupRepository;
  readonly channels: ChannelRepository;
  /** Addresses waiting for their proof, and the links that undo a registration. */
  readonly channelProofs: ChannelProofRepository;
  /** The strong sign-in that opens the registration of channels: sessions, challenges, links. */
  readonly registration: RegistrationRepository;
  /** People's own passkeys and their ceremonies' challenges. */
  readonly userPasskeys: UserPasskeyRepository;
  /** Browsers remembered for codes on screen, each bound to its person. */
  readonly rememberedDevices: RememberedDeviceRepository;
  /** The provider's subject of each person, for the registration through it (ADR 0033). */
  readonly registrationOidcLinks: RegistrationOidcLinkRepository;
  readonly codes: CodeRepository;
  readonly sessions: SessionRepository;
  readonly branding: BrandingRepository;
  readonly catalogs: CatalogRepository;
  readonly audit: AuditRepository;
  /** The audit trail's order, chain and export positions (ADR 0018). */
  readonly auditTrail: AuditTrailRepository;
  /** The reports' counts by day, grouped by the store (domain/reports/reports.ts). */
  readonly reports: ReportRepository;
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
  /** Answers of verifications asked with an Idempotency-Key, for their retries (any instance). */
  readonly verifyAnswers: VerifyAnswerRepository;
  /** The console's accounts, passkeys and sessions. */
  readonly console: ConsoleRepository;
  /** The console's sign-in with an OpenID provider: identities, flows under way, sessions. */
  readonly consoleOidc: ConsoleOidcRepository;
  /** Console accounts of directory people (DEA_CONSOLE_LDAP_ROLES) and their sessions. */
  readonly consoleDirectory: ConsoleDirectoryRepository;
  /** One-time links with which a local user sets a new password. */
  readonly passwordLinks: PasswordLinkRepository;
  /** Console passkeys one by one (names, removal keeping one) and accounts' last sign-in. */
  readonly consolePasskeys: ConsolePasskeyRepository;
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
