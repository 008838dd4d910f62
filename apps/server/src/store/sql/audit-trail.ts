import type { AuditEntry } from '../store.js';
import { type CompiledQuery, type ExpressionBuilder, sql } from 'kysely';
import type { Database } from '../database.js';
import { SECRET_FINGERPRINT_KEY } from '../secret-fingerprint.js';
import { auditEntryOf } from './audit.js';
import { compiledOnce } from './compiled-once.js';
import { type Db, type Dialect } from './db.js';

/** An audit entry as written, with what its stamp covers (ADR 0032). */
export interface WrittenAuditEntry extends AuditEntry {
  /** The details exactly as stored, which the stamp and the chain value cover. */
  detailsText: string;
  /** The writer's stamp; null when none (not written by the product), 'legacy' (an older version's). */
  stamp: string | null;
}

/** An audit entry as sealed in the trail (ADR 0018). */
export interface SealedAuditEntry extends WrittenAuditEntry {
  seq: number;
  chain: string;
  /** The fingerprint of the secret whose key made the chain value. */
  chainKey: string;
}

/** What a sealer makes of an entry's stamp. */
export type StampJudgement =
  /** Stamped under a key the sealer knows, and the stamp matches. */
  | 'valid'
  /** Without a stamp, or one that does not match under the key it names. */
  | 'invalid'
  /** Left unsealed by a version before stamps (migration 0035). */
  | 'legacy'
  /** Stamped under a secret the sealer does not hold (the fingerprint it names). */
  | { unknownKey: string };

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
  /** Whether the entry's stamp shows the product wrote it (ADR 0032). */
  stampOf(entry: WrittenAuditEntry): StampJudgement;
  /** Whether a mark's signature matches; undefined when the sealer holds no key of its secret. */
  markIsSigned(mark: AuditChainMark): boolean | undefined;
  /** Whether the sealer holds the key of this secret (its current or previous one). */
  holds(fingerprint: string): boolean;
  /** What the entry after a cut end of the trail is chained onto instead of its predecessor. */
  cutLinkOf(previous: string, previousSeq: number): string;
  /** Told when the seal sets entries aside or finds the end of the trail cut (the server warns). */
  noticed?(finding: SealFinding): void;
}

/** What a seal found that the operator must hear of (ADR 0032). */
export type SealFinding =
  | { kind: 'refused'; ids: readonly string[] }
  | { kind: 'cut'; afterSeq: number; reason: string };

/** An entry a seal set aside: written without a valid stamp, so not by the product. */
export interface RefusedAuditEntry extends WrittenAuditEntry {
  /** A seal set it aside (else it sits outside the trail by other means: a place or key no seal gives). */
  setAside: boolean;
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
  /**
   * Gives an unused store's trail its signed head at place 0 (its first seal then needs no other
   * evidence that the trail is whole); does nothing on a store that was used (ADR 0032).
   */
  begin(sealer: AuditSealer, now: number): Promise<void>;
  /**
   * Whether anything shows the trail was ever sealed: a sealed entry, a mark, a destination's
   * position, or the secret's fingerprint a server records at its start.
   */
  wasUsed(): Promise<boolean>;
  /** Sealed entries after `seq`, in the trail's order. */
  sealedAfter(seq: number, limit: number): Promise<SealedAuditEntry[]>;
  /** Unsealed entries (not set aside) after `after` in the seal's order (time, then id). */
  unsealed(after: { at: number; id: string } | undefined, limit: number): Promise<WrittenAuditEntry[]>;
  /**
   * Entries outside the trail, oldest first: set aside by a seal (not written by the product), or
   * given by other means what no seal gives (a key but no place, a place below 1).
   */
  refused(limit: number): Promise<RefusedAuditEntry[]>;
  refusedCount(): Promise<number>;
  /** Whether a sealed entry carries a writer's stamp (stamps began, migration 0035). */
  stampsBegun(): Promise<boolean>;
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
  /** Records `seq` as the destination's position unless it has one (a destination's first start). */
  addPosition(destination: string, seq: number, at: number): Promise<void>;
}

const HEAD = 'head';
/** The chain_key of an entry a seal set aside: written without a valid stamp (ADR 0032). */
export const REFUSED = 'refused';
/** The stamp of an entry an older version left unsealed (migration 0035). */
export const LEGACY = 'legacy';
/** Set by migration 0035 on a store whose trail was never sealed: its first start gives it a head. */
export const UNSEALED_AT_0035_KEY = 'audit.unsealed_at_0035';
/** What `cutOf` answers when another sealer changed the end meanwhile. */
const READ_AGAIN = Symbol('read again');
/** Recorded at a store's first head: its trail was sealed (ADR 0032). */
export const SEALED_KEY = 'audit.sealed';

/** PostgreSQL's unique_violation, SQLite's SQLITE_CONSTRAINT_UNIQUE: another sealer took the place. */
/** The PostgreSQL advisory lock (transaction-level) under which sealers place entries in turn. */
const SEAL_LOCK_KEY = 7_301_947_011_112_018;

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

function markOf(row: {
  name: string;
  seq: number | string;
  chain: string;
  reason: string;
  at: number | string;
  chain_key: string;
  mac: string;
}): AuditChainMark {
  return {
    name: row.name,
    seq: Number(row.seq),
    chain: row.chain,
    reason: row.reason,
    at: Number(row.at),
    chainKey: row.chain_key,
    mac: row.mac,
  };
}

/**
 * SQLite's plan of a seal's read, named: it took the unique index on seq for "seq is null" (which
 * it counts as one row) and sorted every unsealed entry at each read, 35 ms a read with 60,000
 * waiting and quadratic in the entries of an import or a sync (12.9 s of sealing 200,000); its
 * statistics do not help (an ANALYZE with every entry sealed leaves the partial index empty). The
 * partial index of the unsealed entries gives them in order, 500 in 0.6 ms however many wait.
 */
function throughUnsealedIndex<R>(compiled: CompiledQuery<R>): CompiledQuery<R> {
  const from = 'from "audit_log" where "seq" is null';
  if (!compiled.sql.includes(from)) throw new Error(`a seal's read without "${from}": ${compiled.sql}`);
  return {
    ...compiled,
    sql: compiled.sql.replace(from, 'from "audit_log" indexed by "audit_log_unsealed" where "seq" is null'),
  };
}

/**
 * How long PostgreSQL's statistics of the audit log are taken as good enough after a seal found a
 * full batch waiting and renewed them (AuditTrailRepository.seal).
 */
const PLANNER_STATISTICS_MS = 60_000;

export function auditTrailRepository(db: Db, dialect: Dialect): AuditTrailRepository {
  // A seal's read and its mark of the head, at every round (while entries are written, one about
  // every AUDIT_SEAL_GATHER_MS, and at every poll): compiled once, not built by Kysely each round.
  // The read is one statement, one round trip to PostgreSQL: the oldest unsealed entries, each
  // beside where the trail ends (the last sealed entry, and the signed head, which a purge may have
  // left beyond it); no row when nothing waits. It was three, each a round trip that costs the
  // server about as much CPU as a bare request (the pairs of `npm run bench:load` on PostgreSQL),
  // at every round and every poll. Its LIMITs are literals:
  // SQLite prepares a statement with a bound LIMIT again at every run (store/sql/prepared-once.test.ts).
  const oldestUnsealedOf = (limit: number) =>
    compiledOnce(db, () => {
      const last = db
        .selectFrom('audit_log')
        .where('seq', 'is not', null)
        .orderBy('seq', 'desc')
        .limit(sql.lit(1));
      const head = db.selectFrom('audit_chain').where('name', '=', HEAD);
      // Each a scalar subquery, which both stores run once for the statement.
      const read = db
        .selectFrom('audit_log')
        .select(['id', 'at', 'event', 'user_id', 'actor', 'client_address', 'details', 'stamp'])
        .select([
          last.select('seq').as('last_seq'),
          last.select('chain').as('last_chain'),
          last.select('chain_key').as('last_chain_key'),
          head.select('seq').as('head_seq'),
          head.select('chain').as('head_chain'),
          head.select('chain_key').as('head_chain_key'),
          head.select('at').as('head_at'),
          head.select('reason').as('head_reason'),
          head.select('mac').as('head_mac'),
        ])
        // Entries a seal set aside (chain_key 'refused') are left out, as the index does.
        .where('seq', 'is', null)
        .where('chain_key', 'is', null)
        .orderBy('at')
        .orderBy('id')
        .limit(sql.lit(limit));
      return dialect === 'sqlite' ? { compile: () => throughUnsealedIndex(read.compile()) } : read;
    });
  // One statement per batch size: the server seals SEAL_BATCH at a time, tests a few sizes more.
  let statisticsRenewedAt = Number.NEGATIVE_INFINITY;
  const oldestUnsealedBySize = new Map<number, ReturnType<typeof oldestUnsealedOf>>();
  const oldestUnsealed = (limit: number) => {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`a seal's batch is a whole number above 0, not ${limit}`);
    let statement = oldestUnsealedBySize.get(limit);
    if (statement === undefined) {
      statement = oldestUnsealedOf(limit);
      oldestUnsealedBySize.set(limit, statement);
    }
    return statement;
  };
  const markHead = compiledOnce(
    db,
    (values: { seq: number; chain: string; at: number; chainKey: string; mac: string }) =>
      db
        .insertInto('audit_chain')
        .values({
          name: HEAD,
          seq: values.seq,
          chain: values.chain,
          reason: HEAD,
          at: values.at,
          chain_key: values.chainKey,
          mac: values.mac,
        })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({
              seq: values.seq,
              chain: values.chain,
              at: values.at,
              chain_key: values.chainKey,
              mac: values.mac,
            })
            .where(sql<boolean>`audit_chain.seq < ${values.seq}`),
        ),
  );
  // The secret the store records (a server's start, secret-fingerprint.ts): an entry stamped under
  // it waits for a sealer that holds it; any other unknown fingerprint is not the product's.
  const storeFingerprint = async (): Promise<string | undefined> =>
    (await db.selectFrom('meta').select('value').where('key', '=', SECRET_FINGERPRINT_KEY).executeTakeFirst())
      ?.value;
  // An entry no seal placed nor waits to place: set aside, or given a key without a place, or a
  // place below the trail's first (which no walk of the trail would meet).
  const outsideTheTrail = (eb: ExpressionBuilder<Database, 'audit_log'>) =>
    eb.or([eb.and([eb('seq', 'is', null), eb('chain_key', 'is not', null)]), eb('seq', '<', 1)]);
  // Recorded once, at the store's first head: one more trace that its trail was ever sealed.
  const markSealed = async (): Promise<void> => {
    await db
      .insertInto('meta')
      .values({ key: SEALED_KEY, value: '1' })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  };
  const stampedSealed = async (): Promise<boolean> =>
    (await db
      .selectFrom('audit_log')
      .select('id')
      .where('seq', 'is not', null)
      .where('stamp', 'is not', null)
      .where('stamp', '<>', LEGACY)
      .limit(1)
      .executeTakeFirst()) !== undefined;
  // Why the end of the trail is not where a seal may go on from, if it is not.
  const cutOf = async (
    sealer: AuditSealer,
    ends: {
      head_seq: number | string | null;
      head_chain: string | null;
      head_chain_key: string | null;
      head_at: number | string | null;
      head_reason: string | null;
      head_mac: string | null;
    },
    lastSeq: number,
  ): Promise<string | typeof READ_AGAIN | undefined> => {
    if (ends.head_seq === null) {
      const cut =
        lastSeq > 0
          ? 'the head of the trail was missing'
          : (await auditTrail.wasUsed())
            ? 'the trail and its head were missing (emptied)'
            : undefined;
      // Another sealer's first head, written since this one read: no cut, read again.
      if (
        cut !== undefined &&
        (await db.selectFrom('audit_chain').select('name').where('name', '=', HEAD).executeTakeFirst()) !==
          undefined
      )
        return READ_AGAIN;
      return cut;
    }
    const signed = sealer.markIsSigned({
      name: HEAD,
      seq: Number(ends.head_seq),
      chain: ends.head_chain ?? '',
      reason: ends.head_reason ?? '',
      at: Number(ends.head_at ?? 0),
      chainKey: ends.head_chain_key ?? '',
      mac: ends.head_mac ?? '',
    });
    if (signed === false) return 'the head of the trail was changed (its signature did not match)';
    // Under a secret this sealer does not hold: the store's (another instance's during a rotation),
    // or a key no sealer of this store has, which no seal wrote.
    if (signed === undefined && ends.head_chain_key !== (await storeFingerprint()))
      return 'the head of the trail was signed under a secret that is neither this server’s nor the store’s';
    return undefined;
  };
  const auditTrail: AuditTrailRepository = {
    async seal(sealer, limit, now) {
      // Optimistic and without a transaction held across statements: the places are given by one
      // UPDATE that applies only while the trail still ends where this sealer read it, and the
      // unique index on seq refuses a second entry at any place. Two sealers that read the same
      // end compute the same chain values; one that read another loses and reads again. (On the
      // embedded store a transaction held across awaits would block another connection of the
      // same process, which waits for the lock with the thread.)
      let sealed = 0;
      for (let attempt = 0; attempt < 50; attempt += 1) {
        let read = (await oldestUnsealed(limit).run(db, {})).rows;
        // A full batch waiting (an import's or a sync's entries) while PostgreSQL's statistics of the
        // audit log are older than them: its plan (for the few unsealed entries the statistics knew)
        // sorted every waiting entry at each read, 40 ms a read with 60,000 waiting, quadratic in a
        // bulk write's entries (30 s of sealing 200,000). Statistics renewed, it reads them in the
        // partial index's order (0.4 ms). At most once a minute per store; autovacuum does the rest.
        if (
          dialect === 'postgres' &&
          read.length === limit &&
          now - statisticsRenewedAt > PLANNER_STATISTICS_MS
        ) {
          statisticsRenewedAt = now;
          await sql`analyze audit_log`.execute(db);
          read = (await oldestUnsealed(limit).run(db, {})).rows;
        }
        const ends = read[0];
        if (ends === undefined) return sealed;
        // Only what the product wrote is chained (ADR 0032): an entry without a valid stamp is set
        // aside; one stamped under a secret this sealer does not hold waits for a sealer that does
        // (an instance with the other secret during a rotation), if it is the store's secret.
        const written = read.map((row) => ({
          row,
          entry: { ...auditEntryOf(row), detailsText: row.details, stamp: row.stamp },
        }));
        const judged = written.map((item) => ({ ...item, judgement: sealer.stampOf(item.entry) }));
        const refused = judged.filter(({ judgement }) => judgement === 'invalid').map(({ row }) => row.id);
        const unknownKeys = new Set(
          judged.flatMap(({ judgement }) => (typeof judgement === 'object' ? [judgement.unknownKey] : [])),
        );
        const storeSecret = unknownKeys.size > 0 ? await storeFingerprint() : undefined;
        for (const { judgement, row } of judged)
          if (typeof judgement === 'object' && judgement.unknownKey !== storeSecret) refused.push(row.id);
        // What an older version left unsealed, only while no stamped entry is sealed.
        if (judged.some(({ judgement }) => judgement === 'legacy') && (await stampedSealed()))
          for (const { judgement, row } of judged) if (judgement === 'legacy') refused.push(row.id);
        if (refused.length > 0) {
          await db
            .updateTable('audit_log')
            .set({ chain_key: REFUSED })
            .where('id', 'in', refused)
            .where('seq', 'is', null)
            .execute();
          sealer.noticed?.({ kind: 'refused', ids: refused });
          continue;
        }
        const rows = judged.filter(({ judgement }) => judgement === 'valid' || judgement === 'legacy');
        if (rows.length === 0) return sealed;
        const lastSeq = Number(ends.last_seq ?? 0);
        // After a purge that removed every sealed entry, the signed head says where the trail ends.
        const fromHead = ends.head_seq !== null && Number(ends.head_seq) > lastSeq;
        const base = fromHead ? Number(ends.head_seq) : lastSeq;
        const baseChain = (fromHead ? ends.head_chain : ends.last_chain) ?? '';
        const baseKey = (fromHead ? ends.head_chain_key : ends.last_chain_key) ?? '';
        // A head removed or changed (the end of the trail cut, or the trail emptied): the cut stays
        // in the chain, which goes on from a link only a holder of the secret makes (ADR 0032).
        let cut = await cutOf(sealer, ends, lastSeq);
        if (cut === READ_AGAIN) continue;
        // A rotation checkpoint vouches only for a chain under a secret this sealer holds, or the
        // store's (another instance's): never for an end given a key no sealer of the store has.
        if (
          cut === undefined &&
          base > 0 &&
          baseKey !== sealer.chainKey &&
          !sealer.holds(baseKey) &&
          baseKey !== (await storeFingerprint())
        )
          cut =
            'the end of the trail was sealed under a secret that is neither this server’s nor the store’s';
        let chain = baseChain;
        if (cut !== undefined) {
          chain = sealer.cutLinkOf(baseChain, base);
          const mark = { name: `cut:${base}`, seq: base, chain, reason: `cut:${cut}`, at: now };
          await db
            .insertInto('audit_chain')
            .values({ ...mark, chain_key: sealer.chainKey, mac: sealer.macOf(mark) })
            .onConflict((oc) => oc.column('name').doNothing())
            .execute();
          sealer.noticed?.({ kind: 'cut', afterSeq: base, reason: cut });
        } else if (ends.head_seq === null) {
          // The store's first seal: its head at place 0 first, so that another sealer that reads
          // the entries placed here before this one marks its head never takes them for a cut.
          const mark = { name: HEAD, seq: 0, chain: '', reason: HEAD, at: now };
          await db
            .insertInto('audit_chain')
            .values({ ...mark, chain_key: sealer.chainKey, mac: sealer.macOf(mark) })
            .onConflict((oc) => oc.column('name').doNothing())
            .execute();
          await markSealed();
        } else if (base > 0 && baseKey !== sealer.chainKey) {
          // A new secret: a checkpoint under its key vouches for the chain so far.
          const checkpoint = {
            name: `checkpoint:${base}`,
            seq: base,
            chain: baseChain,
            reason: 'rotation',
            at: now,
          };
          await db
            .insertInto('audit_chain')
            .values({ ...checkpoint, chain_key: sealer.chainKey, mac: sealer.macOf(checkpoint) })
            .onConflict((oc) => oc.column('name').doNothing())
            .execute();
        }
        let seq = base;
        const values = rows.map(({ row, entry }) => {
          seq += 1;
          chain = sealer.chainOf(chain, { seq, ...entry });
          return sql`(${row.id}, ${seq}, ${chain})`;
        });
        const seqType = sql.raw(dialect === 'postgres' ? 'bigint' : 'integer');
        let updated: number;
        try {
          // On PostgreSQL two such UPDATEs over overlapping entries took their row and unique-index
          // locks in whatever order each plan visited them, and deadlocked. Each now first takes a
          // transaction-level advisory lock (a row reaches the update only joined with it, so the
          // lock comes before any row's): sealers place one after another, in the one statement,
          // which keeps working behind PgBouncer. A later one finds the entries placed (and skips
          // them), or a place taken (unique violation), and reads again. The embedded store has
          // one writer at a time already.
          const turn =
            dialect === 'postgres'
              ? sql`, turn as materialized (select pg_advisory_xact_lock(${sql.lit(SEAL_LOCK_KEY)}))`
              : sql``;
          // SQLite took the unique index on seq for "seq is null" (every unsealed entry) and
          // scanned the batch's values for each of them: 2.8 s a batch with 20,000 entries
          // unsealed, quadratic in an import's or a sync's entries. The unary plus leaves that
          // index out, so the batch's values lead and each finds its entry by id (15 ms).
          const unsealed = dialect === 'postgres' ? sql`audit_log.seq is null` : sql`+audit_log.seq is null`;
          const result = await sql`with v(id, seq, chain) as (values ${sql.join(values)})${turn}
            update audit_log set seq = cast(v.seq as ${seqType}), chain = v.chain, chain_key = ${sealer.chainKey}
            from v${dialect === 'postgres' ? sql`, turn` : sql``}
            where audit_log.id = v.id and ${unsealed}
              and (select coalesce(max(seq), 0) from audit_log) = ${lastSeq}`.execute(db);
          updated = Number(result.numAffectedRows ?? 0n);
        } catch (error) {
          if (isUniqueViolation(error)) continue;
          throw error;
        }
        if (updated === 0) continue;
        sealed += updated;
        if (updated === rows.length) {
          const mark = { name: HEAD, seq, chain, reason: HEAD, at: now };
          await markHead.run(db, { seq, chain, at: now, chainKey: sealer.chainKey, mac: sealer.macOf(mark) });
          // The store's first head (or one after a cut): the store now says its trail was sealed.
          if (ends.head_seq === null) await markSealed();
        }
        // One batch a call: the caller gives other work its turn before the next (sealAuditTrail).
        if (updated === rows.length && (updated === limit || read.length < limit)) return sealed;
      }
      return sealed;
    },
    async begin(sealer, now) {
      // Used: a sealed entry, a mark, a destination's position or the record of a seal; or a server
      // recorded its secret, unless migration 0035 found the trail never sealed (nothing written yet).
      const { rows } = await sql<{ used: number | string; fresh: number | string }>`select
          (select count(*) from (select 1 from audit_log where seq is not null limit 1) s)
          + (select count(*) from (select 1 from audit_chain limit 1) c)
          + (select count(*) from (select 1 from audit_export_positions where seq > 0 limit 1) p)
          + (select count(*) from meta where key = ${SEALED_KEY}) as used,
          (select count(*) from meta where key = ${UNSEALED_AT_0035_KEY}) as fresh`.execute(db);
      if (Number(rows[0]?.used ?? 0) > 0) return;
      if (Number(rows[0]?.fresh ?? 0) === 0 && (await storeFingerprint()) !== undefined) return;
      const mark = { name: HEAD, seq: 0, chain: '', reason: HEAD, at: now };
      await db
        .insertInto('audit_chain')
        .values({ ...mark, chain_key: sealer.chainKey, mac: sealer.macOf(mark) })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      await markSealed();
      await db.deleteFrom('meta').where('key', '=', UNSEALED_AT_0035_KEY).execute();
    },
    async wasUsed() {
      const { rows } = await sql<{ used: number | string }>`select
          (select count(*) from (select 1 from audit_log where seq is not null limit 1) s)
          + (select count(*) from (select 1 from audit_chain limit 1) c)
          + (select count(*) from (select 1 from audit_export_positions where seq > 0 limit 1) p)
          + (select count(*) from meta where key = ${SECRET_FINGERPRINT_KEY})
          + (select count(*) from meta where key = ${SEALED_KEY}) as used`.execute(db);
      return Number(rows[0]?.used ?? 0) > 0;
    },
    async unsealed(after, limit) {
      let query = db
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', 'is', null)
        .where('chain_key', 'is', null);
      if (after !== undefined)
        query = query.where((eb) =>
          eb.or([eb('at', '>', after.at), eb.and([eb('at', '=', after.at), eb('id', '>', after.id)])]),
        );
      const rows = await query.orderBy('at').orderBy('id').limit(limit).execute();
      return rows.map((row) => ({ ...auditEntryOf(row), detailsText: row.details, stamp: row.stamp }));
    },
    async refused(limit) {
      const rows = await db
        .selectFrom('audit_log')
        .selectAll()
        .where(outsideTheTrail)
        .orderBy('at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        ...auditEntryOf(row),
        detailsText: row.details,
        stamp: row.stamp,
        setAside: row.seq === null && row.chain_key === REFUSED,
      }));
    },
    stampsBegun: () => stampedSealed(),
    async refusedCount() {
      const row = await db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('count'))
        .where(outsideTheTrail)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async sealedAfter(after, limit) {
      const rows = await db
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map(
        (row): SealedAuditEntry => ({
          ...auditEntryOf(row),
          detailsText: row.details,
          stamp: row.stamp,
          seq: Number(row.seq),
          chain: row.chain ?? '',
          chainKey: row.chain_key ?? '',
        }),
      );
    },
    async firstSealedSince(at) {
      const row = await db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.min('seq').as('seq'))
        .where('at', '>=', at)
        .where('seq', 'is not', null)
        .executeTakeFirst();
      return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
    },
    async unsealedCount() {
      const row = await db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('seq', 'is', null)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async marks() {
      return (await db.selectFrom('audit_chain').selectAll().orderBy('seq').execute()).map(markOf);
    },
    async addCheckpoint(mark) {
      const changes = {
        seq: mark.seq,
        chain: mark.chain,
        reason: mark.reason,
        at: mark.at,
        chain_key: mark.chainKey,
        mac: mark.mac,
      };
      await db
        .insertInto('audit_chain')
        .values({ name: mark.name, ...changes })
        .onConflict((oc) => oc.column('name').doUpdateSet(changes))
        .execute();
    },
    async lastSeq() {
      const row = await db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    async removableRuns(before, throughSeq) {
      const removable = (alias: string) =>
        sql`${sql.ref(`${alias}.at`)} < ${before} and ${sql.ref(`${alias}.seq`)} <= ${throughSeq}`;
      const edge = async (offset: number) => {
        const { rows } = await sql<{ seq: number | string; chain: string }>`
          select a.seq, a.chain from audit_log a
          where ${removable('a')} and not exists (
            select 1 from audit_log b where b.seq = a.seq + ${offset} and ${removable('b')})
          order by a.seq`.execute(db);
        return rows.map((row) => ({ seq: Number(row.seq), chain: row.chain }));
      };
      const starts = await edge(-1);
      const ends = await edge(1);
      return starts.map((start, index) => ({
        fromSeq: start.seq,
        toSeq: ends[index]?.seq ?? start.seq,
        chain: ends[index]?.chain ?? start.chain,
      }));
    },
    async positions(destinations) {
      const found = new Map(destinations.map((destination) => [destination, 0]));
      if (destinations.length === 0) return found;
      const rows = await db
        .selectFrom('audit_export_positions')
        .selectAll()
        .where('destination', 'in', [...destinations])
        .execute();
      for (const row of rows) found.set(row.destination, Number(row.seq));
      return found;
    },
    async setPosition(destination, seq, at) {
      // Never backwards: two exporters that overlapped (a lease that ran out) keep the furthest.
      await db
        .insertInto('audit_export_positions')
        .values({ destination, seq, updated_at: at })
        .onConflict((oc) =>
          oc
            .column('destination')
            .doUpdateSet({ seq, updated_at: at })
            .where(sql<boolean>`audit_export_positions.seq < ${seq}`),
        )
        .execute();
    },
    async addPosition(destination, seq, at) {
      await db
        .insertInto('audit_export_positions')
        .values({ destination, seq, updated_at: at })
        .onConflict((oc) => oc.column('destination').doNothing())
        .execute();
    },
  };
  return auditTrail;
}
