import { sql, type RawBuilder } from 'kysely';
import type { Db, Dialect } from './db.js';
import { type DialectSql, dialectSql } from './dialect-sql.js';

/** The kinds of rows the retention purge removes (domain/retention/retention.ts says when each may go). */
export const PURGE_KINDS = [
  'codes',
  'sessions',
  'consoleSessions',
  'signinFailures',
  'rateCounters',
  'verifyAnswers',
  'audit',
  'outbox',
  'channelProofs',
  'channelUndoLinks',
  'registrationChallenges',
  'registrationSessions',
  'registrationLinks',
  'registrationOidcFlows',
  'passwordLinks',
  'consoleEnrolmentLinks',
  'rememberedDevices',
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
  /**
   * Proofs, challenges, registration sessions, one-time links (registration, undo, password,
   * console enrolment) and remembered devices that expired, or were used or forgotten, before this.
   */
  linksBefore: number;
  /** Registration sign-ins at the identity provider started before this (they have run out). */
  registrationOidcFlowsBefore: number;
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

interface PurgeTarget {
  table: string;
  key: string;
  /** The rows that may go; null: none (kept for ever). */
  where: (cutoffs: PurgeCutoffs) => RawBuilder<unknown> | null;
  /**
   * The same rows as `where`, as conditions that each go by an index of their own, removed in this
   * order: a batch never scans the table for rows `where` would find by an OR.
   */
  byIndex?: (cutoffs: PurgeCutoffs, sqlOf: DialectSql) => RawBuilder<unknown>[];
}

const TARGETS: Record<PurgeKind, PurgeTarget> = {
  codes: {
    table: 'codes',
    key: 'id',
    where: (c) => sql`expires_at <= ${c.now} or uses_left <= 0 or invalidated_at is not null`,
    // Expired codes by codes_expiry (migration 0012), then used or revoked ones by the indexes
    // each store has for them (dialect-sql.ts spentCodes).
    byIndex: (c, sqlOf) => sqlOf.spentCodes(c.now),
  },
  sessions: {
    table: 'sessions',
    key: 'id_hash',
    where: (c) =>
      sql`ended_at < ${c.sessionsEndedBefore} or last_seen_at < ${c.sessionsLastSeenBefore} or created_at < ${c.sessionsStartedBefore}`,
  },
  consoleSessions: {
    table: 'console_sessions',
    key: 'id_hash',
    where: (c) =>
      sql`ended_at < ${c.consoleSessionsEndedBefore} or last_seen_at < ${c.consoleSessionsLastSeenBefore}`,
  },
  signinFailures: {
    table: 'signin_failures',
    key: 'subject',
    where: (c) =>
      sql`last_failure_at < ${c.signinFailuresBefore} and (locked_until is null or locked_until <= ${c.now})`,
  },
  rateCounters: {
    table: 'rate_counters',
    key: 'subject',
    where: (c) => sql`window_ends_at <= ${c.now}`,
  },
  verifyAnswers: {
    table: 'verify_answers',
    key: 'key_hash',
    where: (c) => sql`expires_at <= ${c.now}`,
  },
  audit: {
    table: 'audit_log',
    key: 'id',
    // Only what the chain's purge checkpoint covers (domain/audit/audit-trail.ts), when given.
    where: (c) =>
      c.auditBefore === null
        ? null
        : c.auditThroughSeq === undefined
          ? sql`at < ${c.auditBefore}`
          : sql`at < ${c.auditBefore} and seq <= ${c.auditThroughSeq}`,
  },
  outbox: {
    table: 'outbox',
    key: 'id',
    where: (c) => (c.outboxBefore === null ? null : sql`created_at < ${c.outboxBefore}`),
  },
  channelProofs: {
    table: 'channel_proofs',
    key: 'id',
    where: (c) => sql`expires_at < ${c.linksBefore}`,
  },
  channelUndoLinks: oneTimeLinks('channel_undo_links'),
  registrationChallenges: {
    table: 'registration_sessions',
    key: 'id',
    where: (c) => sql`expires_at < ${c.linksBefore} and opened_at is null`,
  },
  registrationSessions: {
    table: 'registration_sessions',
    key: 'id',
    where: (c) => sql`expires_at < ${c.linksBefore} and opened_at is not null`,
  },
  registrationLinks: oneTimeLinks('registration_links'),
  registrationOidcFlows: {
    table: 'registration_oidc_flows',
    key: 'state',
    where: (c) => sql`created_at < ${c.registrationOidcFlowsBefore}`,
  },
  passwordLinks: oneTimeLinks('password_links'),
  consoleEnrolmentLinks: oneTimeLinks('console_enrolment_links'),
  rememberedDevices: {
    table: 'remembered_devices',
    key: 'id',
    where: (c) => sql`expires_at < ${c.linksBefore} or forgotten_at < ${c.linksBefore}`,
    // Each by its own index (migration 0033): expired ones, then forgotten ones not expired yet.
    byIndex: (c) => [sql`expires_at < ${c.linksBefore}`, sql`forgotten_at < ${c.linksBefore}`],
  },
};

/** A table of one-time links (token_hash, expires_at, used_at): expired or used before the cutoff. */
function oneTimeLinks(table: string): PurgeTarget {
  return {
    table,
    key: 'token_hash',
    where: (c) => sql`expires_at < ${c.linksBefore} or used_at < ${c.linksBefore}`,
    // Each by its own index (migration 0032): expired ones, then used ones not expired yet.
    byIndex: (c) => [sql`expires_at < ${c.linksBefore}`, sql`used_at < ${c.linksBefore}`],
  };
}

export function retentionRepository(db: Db, dialect: Dialect): RetentionRepository {
  return {
    async count(kind, cutoffs) {
      const { table, where } = TARGETS[kind];
      const condition = where(cutoffs);
      if (condition === null) return 0;
      const { rows } = await sql<{
        n: number | string;
      }>`select count(*) as n from ${sql.table(table)} where ${condition}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
    async removeBatch(kind, cutoffs, limit) {
      const { table, key, where, byIndex } = TARGETS[kind];
      const condition = where(cutoffs);
      if (condition === null) return 0;
      // One statement of at most `limit` rows: row locks are held for milliseconds, never for the
      // whole purge, and the rows found are removed only if they still may go.
      const remove = async (found: RawBuilder<unknown>, left: number) => {
        const result =
          await sql`delete from ${sql.table(table)} where ${sql.ref(key)} in (select ${sql.ref(key)} from ${sql.table(table)} where ${found} limit ${left}) and (${found})`.execute(
            db,
          );
        return Number(result.numAffectedRows ?? 0n);
      };
      if (byIndex === undefined) return remove(condition, limit);
      let removed = 0;
      for (const found of byIndex(cutoffs, dialectSql(dialect))) {
        removed += await remove(found, limit - removed);
        if (removed >= limit) break;
      }
      return removed;
    },
  };
}

export function leaseRepository(db: Db): LeaseRepository {
  return {
    async take(name, holder, now, until) {
      const result = await db
        .insertInto('leases')
        .values({ name, holder, held_until: until })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder, held_until: until })
            .where((eb) => eb.or([eb('leases.held_until', '<=', now), eb('leases.holder', '=', holder)])),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    async find(name) {
      const row = await db.selectFrom('leases').selectAll().where('name', '=', name).executeTakeFirst();
      return row === undefined ? undefined : { holder: row.holder, until: Number(row.held_until) };
    },
    async release(name, holder) {
      await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
    },
  };
}

export function secretUsageRepository(db: Db): SecretUsageRepository {
  return {
    async madeBefore(before, now, sessionsStartedAfter) {
      const codes = await db
        .selectFrom('codes')
        .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('expires_at').as('last')])
        .where('created_at', '<', before)
        .where('uses_left', '>', sql.lit(0))
        .where('invalidated_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      const sessions = await db
        .selectFrom('sessions')
        .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.max('created_at').as('last')])
        .where('created_at', '<', before)
        .where('created_at', '>', sessionsStartedAfter)
        .where('ended_at', 'is', null)
        .executeTakeFirstOrThrow();
      const number = (value: unknown): number | null =>
        value === null || value === undefined ? null : Number(value);
      return {
        codes: { count: Number(codes.n), lastExpiresAt: number(codes.last) },
        sessions: { count: Number(sessions.n), lastStartedAt: number(sessions.last) },
      };
    },
  };
}
