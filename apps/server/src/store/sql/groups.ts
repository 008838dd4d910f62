import type { UserSource } from '../store.js';
import { sql } from 'kysely';
import { compiledOnce } from './compiled-once.js';
import { parseJsonObject, type Db, type Dialect } from './db.js';
import { readsGatheredByTurn } from './by-turn.js';

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

const GROUP_COLUMNS = ['groups.id', 'groups.name', 'groups.priority', 'groups.source'] as const;
const asGroup = (row: { id: string; name: string; priority: number; source: string }): Group => ({
  ...row,
  source: row.source as UserSource,
});

export function groupRepository(db: Db, dialect: Dialect): GroupRepository {
  // Every code issued asks for its user's policy.
  const policyOfUser = compiledOnce(db, (values: { userId: string; category: string }) =>
    db
      .selectFrom('policies')
      .innerJoin('user_groups', 'user_groups.group_id', 'policies.group_id')
      .innerJoin('groups', 'groups.id', 'policies.group_id')
      .select('policies.options')
      .where('user_groups.user_id', '=', values.userId)
      .where('policies.category', '=', values.category)
      .orderBy('groups.priority', 'desc')
      .orderBy('groups.name')
      // A literal: SQLite prepares a statement anew at every run when its LIMIT is a bound value.
      .limit(sql.lit(1)),
  );
  // On PostgreSQL the policies read in one turn of the event loop are read in one round trip: each
  // user's first policy of the category, by the same order.
  const policiesOfUsers = compiledOnce(
    db,
    (values: { userIds: string[]; category: string }) =>
      db
        .selectFrom('policies')
        .innerJoin('user_groups', 'user_groups.group_id', 'policies.group_id')
        .innerJoin('groups', 'groups.id', 'policies.group_id')
        .distinctOn('user_groups.user_id')
        .select(['user_groups.user_id', 'policies.options'])
        .where('user_groups.user_id', '=', sql<string>`any(${values.userIds})`)
        .where('policies.category', '=', values.category)
        .orderBy('user_groups.user_id')
        .orderBy('groups.priority', 'desc')
        .orderBy('groups.name'),
    { prepared: true },
  );
  const gatheredByCategory = new Map<string, (userId: string) => Promise<string | undefined>>();
  const policyGathered = (userId: string, category: string) => {
    let read = gatheredByCategory.get(category);
    if (read === undefined) {
      read = readsGatheredByTurn(async (userIds: string[]) => {
        const { rows } = await policiesOfUsers.run(db, { userIds, category });
        return new Map(rows.map((row) => [row.user_id, row.options]));
      });
      gatheredByCategory.set(category, read);
    }
    return read(userId);
  };
  return {
    async create(group) {
      await db
        .insertInto('groups')
        .values({ ...group, source: group.source ?? 'local' })
        .execute();
    },
    async findByName(name) {
      const row = await db
        .selectFrom('groups')
        .select(GROUP_COLUMNS)
        .where('name', '=', name)
        .executeTakeFirst();
      return row && asGroup(row);
    },
    async rename(id, name) {
      const result = await db.updateTable('groups').set({ name }).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async list() {
      const rows = await db
        .selectFrom('groups')
        .select(GROUP_COLUMNS)
        .orderBy('priority', 'desc')
        .orderBy('name')
        .execute();
      return rows.map(asGroup);
    },
    async setSource(id, source) {
      const result = await db.updateTable('groups').set({ source }).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async addMember(groupId, userId) {
      const result = await db
        .insertInto('user_groups')
        .values({ group_id: groupId, user_id: userId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    async removeMember(groupId, userId) {
      const result = await db
        .deleteFrom('user_groups')
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async setPolicy(groupId, category, options) {
      const text = JSON.stringify(options);
      await db
        .insertInto('policies')
        .values({ group_id: groupId, category, options: text })
        .onConflict((oc) => oc.columns(['group_id', 'category']).doUpdateSet({ options: text }))
        .execute();
    },
    async findPolicyOfUser(userId, category) {
      if (dialect === 'postgres') {
        const options = await policyGathered(userId, category);
        return options === undefined ? undefined : parseJsonObject(options);
      }
      const row = (await policyOfUser.run(db, { userId, category })).rows[0];
      return row && parseJsonObject(row.options);
    },
    async listPolicies(groupId) {
      const rows = await db
        .selectFrom('policies')
        .select(['category', 'options'])
        .where('group_id', '=', groupId)
        .orderBy('category')
        .execute();
      return rows.map((row) => ({ category: row.category, options: parseJsonObject(row.options) }));
    },
    async listOfUser(userId) {
      const rows = await db
        .selectFrom('groups')
        .innerJoin('user_groups', 'user_groups.group_id', 'groups.id')
        .select(GROUP_COLUMNS)
        .where('user_groups.user_id', '=', userId)
        .orderBy('groups.name')
        .execute();
      return rows.map(asGroup);
    },
    async listMembers(groupId) {
      const rows = await db
        .selectFrom('user_groups')
        .select('user_id')
        .where('group_id', '=', groupId)
        .orderBy('user_id')
        .execute();
      return rows.map((row) => row.user_id);
    },
  };
}
