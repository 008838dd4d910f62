import type { Username } from '@dea/contract';
import { type AuditStampKey, auditRowOf, type NewAuditEntry } from './audit.js';
import { flag, type Db, type Dialect } from './db.js';
import { type Channel, channelsOfRows } from './channels.js';
import { lockGroupsInOrder } from './groups.js';
import type { PlannerStatistics } from './planner-statistics.js';
import { toUser } from './user-row.js';
import type { NewUser, User, UserSource } from './users.js';

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
  /**
   * The stored users of these ids of the source, by id, each with its channels and the names of
   * its groups: what provisioning compares a batch with, in three statements per 500 users
   * instead of several per user.
   */
  known(source: UserSource, externalIds: readonly string[]): Promise<Map<string, KnownUser>>;
}

/** A stored user with what provisioning compares: its channels and the names of its groups. */
export interface KnownUser {
  user: User;
  channels: Channel[];
  groups: string[];
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
  statistics: PlannerStatistics,
): BulkUserRepository {
  // The batch reads below take many ids at once, planned from statistics a bulk write outgrows.
  const GROWN_BY_BULK_WRITES = ['users', 'channels', 'user_groups'];
  return {
    async taken(source, externalIds, usernames) {
      await statistics.renew(db, GROWN_BY_BULK_WRITES);
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
    async known(source, externalIds) {
      await statistics.renew(db, GROWN_BY_BULK_WRITES);
      const known = new Map<string, KnownUser>();
      for (const part of chunks(externalIds)) {
        const rows = await db
          .selectFrom('users')
          .selectAll()
          .where('source', '=', source)
          .where('external_id', 'in', part)
          .execute();
        if (rows.length === 0) continue;
        const byId = new Map<string, KnownUser>();
        for (const row of rows) {
          const entry = { user: toUser(row), channels: [], groups: [] };
          byId.set(row.id, entry);
          if (row.external_id !== null) known.set(row.external_id, entry);
        }
        const ids = [...byId.keys()];
        const channels = await db
          .selectFrom('channels')
          .select(['id', 'user_id', 'key', 'address', 'origin', 'proven_at', 'registered_at'])
          .where('user_id', 'in', ids)
          .orderBy('created_at')
          .orderBy('key')
          .execute();
        for (const channel of channelsOfRows(channels)) byId.get(channel.userId)?.channels.push(channel);
        const memberships = await db
          .selectFrom('user_groups')
          .innerJoin('groups', 'groups.id', 'user_groups.group_id')
          .select(['user_groups.user_id', 'groups.name'])
          .where('user_groups.user_id', 'in', ids)
          .execute();
        for (const { user_id: userId, name } of memberships) byId.get(userId)?.groups.push(name);
      }
      return known;
    },
    async createMany(batch, at) {
      // Membership writers take their groups' rows first, in one order (as GroupRepository.write).
      const groupIds = [...new Set(batch.memberships.map((membership) => membership.groupId))];
      await lockGroupsInOrder(db, dialect, groupIds);
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
              display_name: user.displayName ?? null,
              formatted_name: user.formattedName ?? null,
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
