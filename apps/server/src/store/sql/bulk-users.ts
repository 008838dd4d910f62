import type { Username } from '@dea/contract';
import { type AuditStampKey, auditRowOf, type NewAuditEntry } from './audit.js';
import { flag, type Db, type Dialect } from './db.js';
import type { NewUser, UserSource } from './users.js';

/** A new user of a batch: the row, disabled or not, and when it last changed (a channel, the disabling). */
export interface NewBatchUser extends NewUser {
  disabled: boolean;
  updatedAt: number | null;
}

/** New users of one source with their channels, memberships and audit entries, written together. */
export interface NewUsersBatch {
  users: NewBatchUser[];
  channels: { id: string; userId: string; key: string; address: string; createdAt: number }[];
  memberships: { groupId: string; userId: string }[];
  audit: NewAuditEntry[];
}

/**
 * Many users written at once, for the batches of the directory's sync and the import
 * (domain/identity/people-batch.ts, which checks every rule first): a few multi-row statements
 * instead of a dozen statements per user. Run inside a store transaction; a user name or id
 * another writer took meanwhile fails the statement, and with it the batch.
 */
export interface BulkUserRepository {
  /** Which of these ids of the source, and which of these names, some user has already. */
  taken(
    source: UserSource,
    externalIds: readonly string[],
    usernames: readonly Username[],
  ): Promise<{ externalIds: Set<string>; usernames: Set<string> }>;
  createMany(batch: NewUsersBatch, at: number): Promise<void>;
}

/** Rows per statement: well below both stores' limits on bound values. */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT)
    result.push(rows.slice(at, at + ROWS_PER_STATEMENT));
  return result;
}

export function bulkUserRepository(
  db: Db,
  dialect: Dialect,
  stampKey: AuditStampKey | undefined,
): BulkUserRepository {
  return {
    async taken(source, externalIds, usernames) {
      const found = { externalIds: new Set<string>(), usernames: new Set<string>() };
      for (const part of chunks(externalIds)) {
        const rows = await db
          .selectFrom('users')
          .select('external_id')
          .where('source', '=', source)
          .where('external_id', 'in', part)
          .execute();
        for (const row of rows) if (row.external_id !== null) found.externalIds.add(row.external_id);
      }
      for (const part of chunks(usernames)) {
        const rows = await db.selectFrom('users').select('username').where('username', 'in', part).execute();
        for (const row of rows) found.usernames.add(row.username);
      }
      return found;
    },
    async createMany(batch, at) {
      // Membership writers take their groups' rows first, in one order (as GroupRepository.write).
      const groupIds = [...new Set(batch.memberships.map((membership) => membership.groupId))].sort();
      if (dialect === 'postgres' && groupIds.length > 0)
        await db
          .selectFrom('groups')
          .select('id')
          .where('id', 'in', groupIds)
          .orderBy('id')
          .forNoKeyUpdate()
          .execute();
      for (const part of chunks(batch.users))
        await db
          .insertInto('users')
          .values(
            part.map((user) => ({
              id: user.id,
              username: user.username,
              password_hash: user.passwordHash,
              full_name: user.fullName,
              locale: user.locale,
              disabled: flag(user.disabled),
              created_at: user.createdAt,
              last_login_at: null,
              current_login_at: null,
              time_zone: user.timeZone ?? null,
              source: user.source ?? 'local',
              external_id: user.externalId ?? null,
              given_name: user.givenName ?? null,
              family_name: user.familyName ?? null,
              primary_email: user.primaryEmail ?? null,
              primary_phone: user.primaryPhone ?? null,
              updated_at: user.updatedAt,
            })),
          )
          .execute();
      for (const part of chunks(batch.channels))
        await db
          .insertInto('channels')
          .values(
            part.map((channel) => ({
              id: channel.id,
              user_id: channel.userId,
              key: channel.key,
              address: channel.address,
              created_at: channel.createdAt,
            })),
          )
          .execute();
      for (const part of chunks(batch.memberships))
        await db
          .insertInto('user_groups')
          .values(part.map((membership) => ({ group_id: membership.groupId, user_id: membership.userId })))
          .execute();
      if (groupIds.length > 0)
        await db.updateTable('groups').set({ updated_at: at }).where('id', 'in', groupIds).execute();
      for (const part of chunks(batch.audit))
        await db
          .insertInto('audit_log')
          .values(part.map((entry) => auditRowOf(entry, at, stampKey)))
          .execute();
    },
  };
}
