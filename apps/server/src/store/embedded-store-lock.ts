import { existsSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type QueryResult,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { ensurePrivateFile, ensurePrivateFolder } from '../files/private-files.js';
import type { Database } from './database.js';
import type { Db } from './sql/db.js';
import { type DirectStatements, registerDirectStatements } from './sql/direct-statements.js';
import { codeOf, StoreError } from './store-error.js';

/** The file whose lock says that a server runs on the embedded store of its folder. */
export const SERVER_LOCK_FILE = 'dea.server.lock';

export interface ServerLock {
  release(): void;
}

/**
 * Claims the embedded store in `dataDir` for this server process, or refuses with what to do: one
 * embedded store serves one server (the CLI may still run beside it). The claim is an exclusive
 * SQLite lock on a file of its own, held while the process lives and dropped by the system when it
 * ends, however it ends (kill -9 included): nothing stale is left to clean up.
 */
export function claimEmbeddedStore(dataDir: string): ServerLock {
  ensurePrivateFolder(dataDir);
  const file = join(dataDir, SERVER_LOCK_FILE);
  ensurePrivateFile(file);
  const lock = new SqliteDatabase(file, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if (codeOf(error).startsWith('SQLITE_BUSY') || codeOf(error).startsWith('SQLITE_LOCKED')) {
      throw new StoreError(
        `another server already runs on the embedded store in ${dataDir}: stop it first, or give this server its own DEA_DATA_DIR; several instances need PostgreSQL (DATABASE_URL)`,
        { cause: error },
      );
    }
    throw error;
  }
  return {
    release() {
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}

/**
 * Whether a server holds the embedded store in `dataDir` now: its lock file is locked. (A look, not
 * a claim: a shared lock taken and given back at once, which a server's exclusive claim refuses.)
 */
export function embeddedServerRuns(dataDir: string): boolean {
  const file = join(dataDir, SERVER_LOCK_FILE);
  if (!existsSync(file)) return false;
  const probe = new SqliteDatabase(file, { timeout: 0, fileMustExist: true });
  try {
    probe.prepare('select count(*) from sqlite_master').get();
    return false;
  } catch (error) {
    if (codeOf(error).startsWith('SQLITE_BUSY') || codeOf(error).startsWith('SQLITE_LOCKED')) return true;
    throw error;
  } finally {
    probe.close();
  }
}

/**
 * Transactions that take the write lock when they begin (BEGIN IMMEDIATE), not at their first
 * write: a transaction that reads and then writes (a code's limit, a throttle count) waits its turn
 * under `busy_timeout` when another process (the CLI beside the server) writes, instead of failing
 * with "database is locked" because its snapshot went stale.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly fileTurns: FileTurns | undefined,
  ) {
    super(config);
  }

  /** From the moment Kysely holds the connection (a query, a transaction) until it lets it go. */
  #held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#held = true;
    // Free (always, for a store alone in its process): taken at once, without a turn of waiting.
    const turn = this.fileTurns?.take();
    if (turn !== undefined) await turn;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.fileTurns?.give();
    this.#held = false;
    await super.releaseConnection();
  }

  /** DirectStatements.isFree: neither Kysely here nor another store of the file holds it. */
  isFree(): boolean {
    return !this.#held && this.fileTurns?.held !== true;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * SQLite ends a transaction itself on some failures (a full disk, an I/O error, no memory): the
   * rollback that follows then finds none, and its own error ("cannot rollback - no transaction is
   * active") would replace the one that says what happened (SQLITE_FULL), turning a 503 into a 500.
   * Nothing is left to roll back then, and the first error goes on.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } catch (error) {
      if (!NO_TRANSACTION.test((error as Error).message)) throw error;
    }
  }
}

/** SQLite's answer to a rollback after it ended the transaction itself. */
const NO_TRANSACTION = /no transaction is active/;

/**
 * Turns at one database file among the stores of one process. SQLite waits for another
 * connection's lock by blocking its thread (`busy_timeout`), so two stores on one file in one
 * thread (the in-process CLI of tests beside a test server, a second instance of a test) would
 * wait on each other for good while one holds a transaction across awaits: the one waiting blocks
 * the thread the holder needs to finish. Their statements and transactions take turns here
 * instead, as one store's do on its one connection. A store alone in its process (a server, the
 * CLI) always finds the file free.
 */
class FileTurns {
  #held = false;
  private readonly waiting: (() => void)[] = [];

  /** Whether a store of the file holds it (its turn runs). */
  get held(): boolean {
    return this.#held;
  }

  take(): Promise<void> | undefined {
    if (!this.#held) {
      this.#held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}

const FILE_TURNS = new Map<string, FileTurns>();

function fileTurnsOf(file: string): FileTurns {
  let turns = FILE_TURNS.get(file);
  if (turns === undefined) {
    turns = new FileTurns();
    FILE_TURNS.set(file, turns);
  }
  return turns;
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig & { database: KyselySqliteDatabase };
  readonly #file: string | undefined;
  #driver: ImmediateSqliteDriver | undefined;

  /** `file`: the database file, whose turns the stores of this process share (FileTurns). */
  constructor(config: SqliteDialectConfig & { database: KyselySqliteDatabase; file?: string }) {
    super(config);
    this.#config = config;
    this.#file = config.file;
  }

  override createDriver(): SqliteDriver {
    this.#driver = new ImmediateSqliteDriver(
      this.#config,
      this.#file === undefined ? undefined : fileTurnsOf(this.#file),
    );
    return this.#driver;
  }

  /**
   * The statements of the Kysely made with this dialect, run at once (sql/direct-statements.ts): on
   * the same database object, and so the same prepared statements, as Kysely's connection.
   */
  directStatements(): DirectStatements {
    const database = this.#config.database;
    return {
      isFree: () => this.#driver?.isFree() === true,
      run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> {
        const statement = database.prepare(sql);
        if (statement.reader) return { rows: statement.all(parameters) as R[] };
        const { changes, lastInsertRowid } = statement.run(parameters);
        return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
      },
    };
  }
}

/**
 * The Kysely of an embedded database (its folder's file, or any database of tests), whose
 * statements compiled once run at once (sql/direct-statements.ts). `file`: as the dialect's.
 */
export function embeddedDb(database: KyselySqliteDatabase, file?: string): Db {
  const dialect = new ImmediateSqliteDialect({ database, ...(file !== undefined && { file }) });
  const db = new Kysely<Database>({ dialect });
  registerDirectStatements(db, dialect.directStatements());
  return db;
}

/** Prepared statements kept per SQL text: the product's queries are a few hundred at most. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The embedded database with its prepared statements kept for reuse: Kysely prepares every query
 * again, which took about a sixth of a signed-in call's time. Statements run one at a time (one
 * connection, Kysely's lock), and none is left iterating (no query streams), so one statement per
 * SQL text serves every call. The oldest goes when the cache is full.
 */
export function withStatementCache(database: KyselySqliteDatabase): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value ?? '');
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
