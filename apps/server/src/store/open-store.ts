import { ensurePrivateFile, ensurePrivateFolder } from '../files/private-files.js';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './database.js';
import { embeddedDb, withStatementCache } from './embedded-store-lock.js';
import { storeConnectionError } from './connection-errors.js';
import { poolPreparing, type PreparedStatements } from './prepared-statements.js';
import { WAL_BACKSTOP_PAGES } from './wal-checkpoints.js';
import { migrate, requireCurrentSchema, schemaState } from './schema.js';
import { pendingProblems } from './migrations/index.js';
import { type AuditStampKey, auditRepository } from './sql/audit.js';
import { reportRepository } from './sql/reports.js';
import { auditTrailRepository } from './sql/audit-trail.js';
import { leaseRepository, retentionRepository, secretUsageRepository } from './sql/retention.js';
import { brandingRepository } from './sql/branding.js';
import { catalogRepository } from './sql/catalogs.js';
import { channelProofRepository } from './sql/channel-proofs.js';
import { registrationRepository } from './sql/registration.js';
import { userPasskeyRepository } from './sql/user-passkeys.js';
import { rememberedDeviceRepository } from './sql/remembered-devices.js';
import { registrationOidcLinkRepository } from './sql/registration-oidc-links.js';
import { channelRepository } from './sql/channels.js';
import { codeRepository } from './sql/codes.js';
import type { Db, Dialect } from './sql/db.js';
import { groupRepository } from './sql/groups.js';
import { hotPathOf } from './sql/hot-path/hot-path.js';
import { metaRepository } from './sql/meta.js';
import { outboxRepository } from './sql/outbox.js';
import { rateCounterRepository } from './sql/rate-counters.js';
import { consoleRepository } from './sql/console.js';
import { consoleDirectoryRepository } from './sql/console-directory.js';
import { consoleOidcRepository } from './sql/console-oidc.js';
import { passwordLinkRepository } from './sql/password-links.js';
import { consolePasskeyRepository } from './sql/console-passkeys.js';
import { serviceKeyRepository } from './sql/service-keys.js';
import { sessionRepository } from './sql/sessions.js';
import { signinFailureRepository } from './sql/signin-failures.js';
import { userRepository } from './sql/users.js';
import {
  NO_PLANNER_STATISTICS,
  type PlannerStatistics,
  PostgresPlannerStatistics,
} from './sql/planner-statistics.js';
import { bulkUserRepository } from './sql/bulk-users.js';
import { verifyAnswerRepository } from './sql/verify-answers.js';
import { verifyFailureRepository } from './sql/verify-failures.js';
import type { Store } from './store.js';

export interface StoreOptions {
  /** postgres://... for PostgreSQL; unset for the embedded SQLite file. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded store file. */
  dataDir: string;
  /** Connections per instance (PostgreSQL). */
  poolSize?: number;
  /** Bounds on PostgreSQL's answers; without them a frozen database holds requests forever. */
  timeouts?: DatabaseTimeouts;
  /** migrate (default): bring the schema up to date; require-current: refuse any other; as-is: neither. */
  schema?: 'migrate' | 'require-current' | 'as-is';
  /** Told the schema changes a start with `schema: 'migrate'` applied (none: not called). */
  onMigrated?: (applied: readonly string[]) => void;
  /** Hot statements as named prepared statements on PostgreSQL (default on). */
  preparedStatements?: PreparedStatements;
  /**
   * The key that stamps every audit entry written through this store (the current secret's, ADR
   * 0032); without it entries go unstamped, and no seal chains them.
   */
  auditStampKey?: AuditStampKey | undefined;
}

export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one of the pool. */
  connectMs: number;
  /** One statement: the server cancels it, and the client gives up on it shortly after. */
  statementMs: number;
  /** Waiting for a row or table lock. */
  lockMs: number;
  /**
   * Whether the server-side timeouts go as connection parameters; off behind a pooler that refuses
   * them (PgBouncer), where they are set on the role instead. The client's own bound stays.
   */
  serverSide: boolean;
}

/** How much longer than the server's statement timeout the client waits (a frozen or gone server). */
const CLIENT_GRACE_MS = 2000;

export const EMBEDDED_STORE_FILE = 'dea.sqlite';

const INT8_OID = 20;

/**
 * The PostgreSQL driver, loaded by the first store that names a database: the embedded store's
 * processes (`dea` above all, a process a command) never evaluate it.
 */
const postgresDriver = async (): Promise<typeof pg> => (await import('pg')).default;

async function postgresDb(
  url: string,
  poolSize: number,
  timeouts: DatabaseTimeouts | undefined,
  prepared: PreparedStatements,
): Promise<Db> {
  const driver = await postgresDriver();
  const bigintAsNumber = (oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
    oid === INT8_OID ? Number : (driver.types.getTypeParser(oid, format) as (value: string) => unknown);
  const pool = new driver.Pool({
    connectionString: url,
    max: poolSize,
    ...(timeouts && {
      connectionTimeoutMillis: timeouts.connectMs,
      query_timeout: timeouts.statementMs + CLIENT_GRACE_MS,
      ...(timeouts.serverSide && {
        statement_timeout: timeouts.statementMs,
        lock_timeout: timeouts.lockMs,
        // A transaction left open (its client gone mid-way) gives its locks back.
        idle_in_transaction_session_timeout: timeouts.statementMs,
      }),
    }),
    // BIGINT times and counts fit a double exactly (epoch ms < 2^53).
    types: { getTypeParser: bigintAsNumber },
  });
  // A connection the server ends while it sits idle in the pool (restart, failover, an admin's
  // pg_terminate_backend, a dropped database) is an 'error' event on the pool: without a listener
  // Node throws it and the process dies. The pool has already discarded that connection and the
  // next query opens a new one, so there is nothing else to do.
  pool.on('error', () => undefined);
  // A connection ended while checked out (a query in flight) also emits 'error' on its client;
  // the query itself fails and the pool discards the client. Unheard, the event would end the
  // process: no database event may do that.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: poolPreparing(pool, prepared) }) });
}

/**
 * The most of the embedded store's pages one connection keeps in memory, in KiB (taken only as
 * pages are read). SQLite's default, 2 MiB, holds a store's hot pages only until it has some
 * thousands of codes and audit entries; past that, statements read their pages from the file
 * again (docs/benchmarks.md, "Verification against a bare route", has what it saves).
 */
export const PAGE_CACHE_KIB = 64 * 1024;

/** The embedded store's connection to `file`, set as every process that opens the store sets it. */
export function embeddedConnection(file: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  // The server copies the log back on a thread of its own (wal-checkpoints.ts); a connection does
  // it inline only past this backstop. The log file is cut back to 64 MiB after each copy.
  database.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
  database.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  return database;
}

function sqliteDb(dataDir: string): Db {
  ensurePrivateFolder(dataDir);
  const file = join(dataDir, EMBEDDED_STORE_FILE);
  // SQLite gives its -wal and -shm files the mode of the database file.
  ensurePrivateFile(file);
  return embeddedDb(withStatementCache(embeddedConnection(file)), file);
}

export function storeOver(
  db: Db,
  dialect: Dialect,
  stampKey?: AuditStampKey,
  // One per store, kept across its transactions.
  statistics: PlannerStatistics = dialect === 'postgres'
    ? new PostgresPlannerStatistics()
    : NO_PLANNER_STATISTICS,
): Store {
  // What issuing, verifying and signing in read and write, different per database for speed.
  const hot = hotPathOf(db, dialect, stampKey);
  return {
    kind: dialect,
    users: userRepository(db, dialect, hot),
    bulkUsers: bulkUserRepository(db, dialect, stampKey, statistics),
    groups: groupRepository(db, dialect, stampKey, hot),
    channels: channelRepository(db, hot),
    channelProofs: channelProofRepository(db),
    registration: registrationRepository(db),
    userPasskeys: userPasskeyRepository(db),
    rememberedDevices: rememberedDeviceRepository(db),
    registrationOidcLinks: registrationOidcLinkRepository(db),
    codes: codeRepository(db, hot),
    sessions: sessionRepository(db, hot),
    branding: brandingRepository(db),
    catalogs: catalogRepository(db, dialect),
    audit: auditRepository(db, stampKey),
    auditTrail: auditTrailRepository(db, dialect),
    reports: reportRepository(db),
    outbox: outboxRepository(db),
    serviceKeys: serviceKeyRepository(db, hot),
    console: consoleRepository(db),
    consoleOidc: consoleOidcRepository(db),
    consoleDirectory: consoleDirectoryRepository(db),
    passwordLinks: passwordLinkRepository(db),
    consolePasskeys: consolePasskeyRepository(db),
    meta: metaRepository(db),
    retention: retentionRepository(db, dialect),
    leases: leaseRepository(db),
    secretUsage: secretUsageRepository(db),
    signinFailures: signinFailureRepository(db),
    rateCounters: rateCounterRepository(db),
    verifyFailures: verifyFailureRepository(db),
    verifyAnswers: verifyAnswerRepository(db),
    schema: {
      state: () => schemaState(db),
      problems: (pending) => pendingProblems(db as Kysely<unknown>, pending),
      migrate: () => migrate(db, dialect),
    },
    transaction(work) {
      if (db.isTransaction) return work(this);
      return db.transaction().execute((trx) => work(storeOver(trx, dialect, stampKey, statistics)));
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * Opens the store the options name. `schema: 'migrate'` (the server's start, `dea migrate`)
 * brings its schema up to date; `'require-current'` (every other CLI command, a server with
 * DEA_MIGRATE=off) changes nothing and refuses a schema that is not this version's. Every failure
 * is a StoreError that names its cause and the setting to check.
 */
/**
 * A PostgreSQL that takes no writes (a standby a failover left the address on, or
 * default_transaction_read_only) would fail the first write of the start with a bare error; it is
 * told here instead, as a failure that passes (SQLSTATE 25006), so a start waits for the primary.
 */
async function refuseReadOnly(db: Db): Promise<void> {
  const { rows } = await sql<{
    readOnly: string;
  }>`select current_setting('transaction_read_only') as "readOnly"`.execute(db);
  if (rows[0]?.readOnly === 'on')
    throw Object.assign(new Error('the server takes no writes (transaction_read_only is on)'), {
      code: '25006',
    });
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const dialect: Dialect = options.databaseUrl ? 'postgres' : 'sqlite';
  let db: Db;
  try {
    db = options.databaseUrl
      ? await postgresDb(
          options.databaseUrl,
          options.poolSize ?? 10,
          options.timeouts,
          options.preparedStatements ?? { enabled: true },
        )
      : sqliteDb(options.dataDir);
  } catch (error) {
    throw storeConnectionError(error, options);
  }
  try {
    await sql`select 1`.execute(db);
    if (dialect === 'postgres') await refuseReadOnly(db);
  } catch (error) {
    await db.destroy();
    throw storeConnectionError(error, options);
  }
  try {
    if ((options.schema ?? 'migrate') === 'migrate') {
      const applied = await migrate(db, dialect);
      if (applied.length > 0) options.onMigrated?.(applied);
    } else if (options.schema === 'require-current') requireCurrentSchema(await schemaState(db));
  } catch (error) {
    await db.destroy();
    throw storeConnectionError(error, options);
  }
  return storeOver(db, dialect, options.auditStampKey);
}
