import type { AuditEventName } from '../audit-event-names.js';
import { newId } from '../../crypto/ids.js';
import { entryStampOf, verificationStampOf } from '../../crypto/audit-chain.js';
import { type CompiledQuery, type Selectable, sql } from 'kysely';
import type { AuditLogTable } from '../database.js';
import { compiledOnce } from './compiled-once.js';
import { parseJsonObject, type Db } from './db.js';

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
  /** Only entries about a member of one of these groups (by name): a scoped console account's. */
  userInGroups?: readonly string[];
}

/**
 * The key that stamps every entry this store writes (the current secret's audit-entry key, by its
 * fingerprint; ADR 0032). A store opened without one writes entries no seal chains.
 */
export interface AuditStampKey {
  fingerprint: string;
  key: Buffer;
}

export interface AuditRepository {
  append(entry: NewAuditEntry, at: number): Promise<void>;
  list(filter: AuditFilter): Promise<AuditEntry[]>;
}

/** Writes audit entries, on the store or inside a transaction of it (compiled once: most calls write one). */
export function auditInserter(
  db: Db,
  stampKey: AuditStampKey | undefined,
): (target: Db, entry: NewAuditEntry, at: number) => Promise<void> {
  const insert = compiledOnce(db, (row: AuditRow) =>
    db.insertInto('audit_log').values({
      id: row.id,
      at: row.at,
      event: row.event,
      user_id: row.user_id,
      actor: row.actor,
      client_address: row.client_address,
      details: row.details,
      stamp: row.stamp,
    }),
  );
  return async (target, entry, at) => {
    await insert.run(target, auditRowOf(entry, at, stampKey));
  };
}

/**
 * The embedded store's insert of an audit entry that is written only when the statement run just
 * before it on the connection changed a row (SQLite's changes()): a change and its entry in one
 * transaction whose statements need not wait for each other's answers.
 */
export function auditInsertIfChanged(
  db: Db,
  entry: NewAuditEntry,
  at: number,
  stampKey: AuditStampKey | undefined,
): CompiledQuery {
  const row = auditRowOf(entry, at, stampKey);
  return db
    .insertInto('audit_log')
    .columns(['id', 'at', 'event', 'user_id', 'actor', 'client_address', 'details', 'stamp'])
    .expression(
      db
        .selectNoFrom((eb) => [
          eb.val(row.id).as('id'),
          eb.val(row.at).as('at'),
          eb.val(row.event).as('event'),
          eb.val(row.user_id).as('user_id'),
          eb.val(row.actor).as('actor'),
          eb.val(row.client_address).as('client_address'),
          eb.val(row.details).as('details'),
          eb.val(row.stamp).as('stamp'),
        ])
        .where(sql<boolean>`changes() > 0`),
    )
    .compile();
}

/** What is written of an audit entry; the store seals it (seq, chain) afterwards. */
export type AuditRow = Omit<Selectable<AuditLogTable>, 'seq' | 'chain' | 'chain_key'>;

/** The stored row of an audit entry, stamped with the store's key (unstamped without one). */
export function auditRowOf(entry: NewAuditEntry, at: number, stampKey: AuditStampKey | undefined): AuditRow {
  const row = {
    id: entry.id ?? newId(at),
    at,
    event: entry.event,
    user_id: entry.userId ?? null,
    actor: entry.actor ?? null,
    client_address: entry.clientAddress ?? null,
    details: JSON.stringify(entry.details ?? {}),
  };
  return {
    ...row,
    stamp:
      stampKey === undefined
        ? null
        : entryStampOf(stampKey.key, stampKey.fingerprint, {
            id: row.id,
            at: row.at,
            event: row.event,
            userId: row.user_id,
            actor: row.actor,
            clientAddress: row.client_address,
            details: row.details,
          }),
  };
}

/**
 * The stamp of an entry a code's verification writes inside PostgreSQL (`dea_verify_code`, which
 * decides its event and details): null without a key.
 */
export function verificationStamp(
  stampKey: AuditStampKey | undefined,
  entry: {
    id: string;
    at: number;
    userId: string | null;
    actor: string | null;
    clientAddress: string | null;
  },
): string | null {
  return stampKey === undefined ? null : verificationStampOf(stampKey.key, stampKey.fingerprint, entry);
}

/** An entry as the store answers it, from its row (the trail adds the details' text, place and chain). */
export function auditEntryOf(row: Omit<AuditRow, 'stamp'>): AuditEntry {
  return {
    id: row.id,
    at: Number(row.at),
    event: row.event,
    userId: row.user_id,
    actor: row.actor,
    clientAddress: row.client_address,
    details: parseJsonObject(row.details),
  };
}

export function auditRepository(db: Db, stampKey: AuditStampKey | undefined): AuditRepository {
  const insert = auditInserter(db, stampKey);
  return {
    append: (entry, at) => insert(db, entry, at),
    async list(filter) {
      let query = db.selectFrom('audit_log').selectAll();
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.event !== undefined) query = query.where('event', '=', filter.event);
      if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
      if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
      if (filter.until !== undefined) query = query.where('at', '<', filter.until);
      const { after, userInGroups } = filter;
      if (userInGroups !== undefined) {
        if (userInGroups.length === 0) return [];
        query = query.where('user_id', 'in', (eb) =>
          eb
            .selectFrom('user_groups')
            .innerJoin('groups', 'groups.id', 'user_groups.group_id')
            .select('user_groups.user_id')
            .where('groups.name', 'in', [...userInGroups]),
        );
      }
      if (after !== undefined)
        query = query.where((eb) =>
          eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
        );
      const rows = await query
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(auditEntryOf);
    },
  };
}
