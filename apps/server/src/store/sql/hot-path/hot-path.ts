import type { Username } from '@dea/contract';
import type { AuditStampKey } from '../audit.js';
import type { Channel } from '../channels.js';
import type { IssueCall, IssueOutcome, VerifyAnswer, VerifyCall } from '../codes.js';
import type { Db, Dialect } from '../db.js';
import type { NamedUser, ServiceKey, ServiceKeyWithUser } from '../service-keys.js';
import type { SessionWithUser, StoredPolicyPair } from '../sessions.js';
import type { User, UserWithPolicy } from '../users.js';
import { embeddedCodeUse } from './codes-embedded.js';
import { postgresCodeUse } from './codes-postgres.js';
import { embeddedReads } from './reads-embedded.js';
import { postgresReads } from './reads-postgres.js';

/**
 * The store's hot path: what issuing a code, verifying one and signing in ask of the store on
 * every request. Here, and only here, the store works differently per database, for speed:
 *
 * - On PostgreSQL a read of one turn of the event loop is gathered with the others of that turn
 *   into one statement, one round trip (by-turn.ts), and a code's issue and verification are each
 *   one call of a PL/pgSQL function (codes-postgres.ts).
 * - On the embedded store, whose reads cost no round trip, each read is one statement compiled once
 *   (what a call needs together, together), and the issues and verifications of one turn share a
 *   transaction and its commit (codes-embedded.ts, shared-transactions.ts).
 *
 * The repositories take these answers as they are; everything else in the store is plain Kysely.
 * The figures that keep each of these are in docs/benchmarks.md ("Verification against a bare
 * route", "The cost of a request before the use case").
 */
export interface HotPath {
  userById(id: string): Promise<User | undefined>;
  userByUsername(username: Username): Promise<User | undefined>;
  /** The user by name and their policy of `category` (RADIUS needs both before anything else). */
  userWithPolicy(username: Username, category: string): Promise<UserWithPolicy | undefined>;
  /** A page session by its id's hash, with its user: every signed-in request asks. */
  session(idHash: string): Promise<SessionWithUser | undefined>;
  /**
   * The session, with its user's policies of two categories, in one statement: a code on screen
   * needs both (on PostgreSQL with the other reads of its turn).
   */
  sessionWithPolicies(
    idHash: string,
    categories: readonly [string, string],
  ): Promise<(SessionWithUser & { policies: StoredPolicyPair }) | undefined>;
  /** A user's channels, in the order every reader lists them: every code issued or sent asks. */
  channelsOfUser(userId: string): Promise<Channel[]>;
  /** The stored options of the user's policy of a category (its text; undefined: none). */
  policyOfUser(userId: string, category: string): Promise<string | undefined>;
  /** The same for two categories, by category (a code on screen asks for both). */
  policiesOfUser(userId: string, categories: readonly [string, string]): Promise<Map<string, string>>;
  serviceKey(id: string): Promise<ServiceKey | undefined>;
  /** A service key with the user a verification names (tempPass/verify needs both first). */
  serviceKeyWithUser(keyId: string, named: NamedUser): Promise<ServiceKeyWithUser>;
  issueCode(call: IssueCall): Promise<IssueOutcome>;
  verifyCode(call: VerifyCall): Promise<VerifyAnswer>;
}

/** The hot path of a store (or of one of its transactions, `db` then the transaction). */
export function hotPathOf(db: Db, dialect: Dialect, stampKey: AuditStampKey | undefined): HotPath {
  return dialect === 'postgres'
    ? { ...postgresReads(db), ...postgresCodeUse(db, stampKey) }
    : { ...embeddedReads(db), ...embeddedCodeUse(db, stampKey) };
}
