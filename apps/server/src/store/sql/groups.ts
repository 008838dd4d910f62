import { CompiledQuery, type Expression, type QueryResult, sql } from 'kysely';
import type { UserSource } from '../store.js';
import { type AuditStampKey, auditInsertIfChanged, auditInserter, type NewAuditEntry } from './audit.js';
import { parseJsonObject, type Db, type Dialect } from './db.js';
import { dialectSql } from './dialect-sql.js';
import type { HotPath } from './hot-path/hot-path.js';
import { orderTermsOf, type RowFilter, type RowOrder, whereOf } from './row-filter.js';
import type { StoredPolicyPair } from './sessions.js';

export interface Group {
  id: string;
  name: string;
  priority: number;
  /** Who owns it: 'local' (an operator), or the source that made it or was handed it. */
  source: UserSource;
  /** The SCIM client's own id of the group; absent or null: none. */
  externalId?: string | null;
  /** The source that created it; absent or null: an operator, or made before this was kept. */
  createdBy?: UserSource | null;
  /** When it was created and last changed (its name, owner, externalId, members); absent: before this was kept. */
  createdAt?: number;
  updatedAt?: number;
}

export interface GroupRepository {
  /** Without a source, the group is an operator's ('local'). */
  create(group: Omit<Group, 'source'> & { source?: UserSource }): Promise<void>;
  findByName(name: string): Promise<Group | undefined>;
  /**
   * The group, its row held until the transaction ends (PostgreSQL: FOR NO KEY UPDATE; the
   * embedded store's transactions take the write lock as they begin): another change of the group
   * waits for this one. For a change that checks what it read before it writes (SCIM's If-Match).
   */
  findForChange(id: string): Promise<Group | undefined>;
  /** Answers whether the group exists; a name another group has is refused. */
  rename(id: string, name: string): Promise<boolean>;
  list(): Promise<Group[]>;
  /** The groups of this owner the filter selects (evaluated by the store), in that order, else by priority and name. */
  listOfSourceWhere(
    source: UserSource,
    filter: RowFilter<GroupFilterColumn>,
    order?: RowOrder<GroupFilterColumn>,
  ): Promise<Group[]>;
  /** Gives the group to another owner; answers whether the group exists. */
  setSource(id: string, source: UserSource): Promise<boolean>;
  /** Answers whether the user joined now (false: a member already). */
  addMember(groupId: string, userId: string): Promise<boolean>;
  /** Answers whether the user left now (false: no member). */
  removeMember(groupId: string, userId: string): Promise<boolean>;
  setPolicy(groupId: string, category: string, options: Record<string, unknown>): Promise<void>;
  /** The policy options of the user's highest-priority group that has one for the category. */
  findPolicyOfUser(userId: string, category: string): Promise<Record<string, unknown> | undefined>;
  /**
   * The policy options of two categories at once, each as `findPolicyOfUser` decides, in one
   * statement (a code on screen asks for its "Self Service" and "Channel Registration" policies).
   */
  findPoliciesOfUser(
    userId: string,
    categories: readonly [string, string],
  ): Promise<[Record<string, unknown> | undefined, Record<string, unknown> | undefined]>;
  /** The group's policies, by category name. */
  listPolicies(groupId: string): Promise<{ category: string; options: Record<string, unknown> }[]>;
  /** The ids of the group's members. */
  listMembers(groupId: string): Promise<string[]>;
  /** The groups the user is a member of. */
  listOfUser(userId: string): Promise<Group[]>;
  /**
   * Makes the writes and appends the audit entry of each that changed something, all in one
   * transaction, or nothing at all when one fails (a name another group has, an entry that cannot
   * be written). A write that changes nothing (a member already, no such group, an owner other
   * than `ifSource`) writes no entry. Answers, for each write, whether it changed something.
   */
  write(writes: readonly AuditedGroupWrite[], at: number): Promise<boolean[]>;
}

/** What a filter of groups compares: their columns, and `last_modified` (updated, else created). */
export type GroupFilterColumn = 'id' | 'name' | 'external_id' | 'created_at' | 'last_modified';

const groupFilterColumn = (column: GroupFilterColumn) =>
  column === 'last_modified' ? sql`coalesce(updated_at, created_at)` : sql.ref(`groups.${column}`);

/** One change of a group or a membership; `ifSource`: only while the group has this owner. */
export type GroupWrite =
  | { kind: 'create'; group: Group }
  | { kind: 'rename'; groupId: string; name: string; ifSource: UserSource }
  | { kind: 'setSource'; groupId: string; source: UserSource; ifSource: UserSource }
  | { kind: 'setExternalId'; groupId: string; externalId: string | null; ifSource: UserSource }
  | { kind: 'remove'; groupId: string; ifSource: UserSource }
  | { kind: 'addMember' | 'removeMember'; groupId: string; userId: string }
  | { kind: 'setPolicy'; groupId: string; category: string; options: Record<string, unknown> };

export interface AuditedGroupWrite {
  change: GroupWrite;
  /** None: the writer audits the writes together (Groups.leaveAll: one entry for a user's groups). */
  audit: NewAuditEntry | undefined;
}

const GROUP_COLUMNS = [
  'groups.id',
  'groups.name',
  'groups.priority',
  'groups.source',
  'groups.external_id',
  'groups.created_by',
  'groups.created_at',
  'groups.updated_at',
] as const;
const asGroup = (row: {
  id: string;
  name: string;
  priority: number;
  source: string;
  external_id: string | null;
  created_by: string | null;
  created_at: number | string | null;
  updated_at: number | string | null;
}): Group => ({
  id: row.id,
  name: row.name,
  priority: row.priority,
  source: row.source as UserSource,
  // Absent when none, so that a group reads as it was written.
  ...(row.external_id !== null && { externalId: row.external_id }),
  ...(row.created_by !== null && { createdBy: row.created_by as UserSource }),
  ...(row.created_at !== null && { createdAt: Number(row.created_at) }),
  ...(row.updated_at !== null && { updatedAt: Number(row.updated_at) }),
});

const groupRow = (group: Group) => ({
  id: group.id,
  name: group.name,
  priority: group.priority,
  source: group.source,
  external_id: group.externalId ?? null,
  created_by: group.createdBy ?? null,
  created_at: group.createdAt ?? null,
  updated_at: group.createdAt ?? null,
});

/** The statement of one change of a group; the rows it touched say whether it changed something. */
function changeStatement(db: Db, change: GroupWrite, at: number): CompiledQuery {
  switch (change.kind) {
    case 'create':
      return db
        .insertInto('groups')
        .values(groupRow({ ...change.group, createdAt: change.group.createdAt ?? at }))
        .compile();
    case 'remove':
      return db
        .deleteFrom('groups')
        .where('id', '=', change.groupId)
        .where('source', '=', change.ifSource)
        .compile();
    case 'rename':
    case 'setSource':
    case 'setExternalId':
      return db
        .updateTable('groups')
        .set({
          ...(change.kind === 'rename'
            ? { name: change.name }
            : change.kind === 'setSource'
              ? { source: change.source }
              : { external_id: change.externalId }),
          updated_at: at,
        })
        .where('id', '=', change.groupId)
        .where('source', '=', change.ifSource)
        .compile();
    case 'addMember':
      return db
        .insertInto('user_groups')
        .values({ group_id: change.groupId, user_id: change.userId })
        .onConflict((oc) => oc.doNothing())
        .compile();
    case 'removeMember':
      return db
        .deleteFrom('user_groups')
        .where('group_id', '=', change.groupId)
        .where('user_id', '=', change.userId)
        .compile();
    case 'setPolicy': {
      const text = JSON.stringify(change.options);
      return db
        .insertInto('policies')
        .values({ group_id: change.groupId, category: change.category, options: text })
        .onConflict((oc) => oc.columns(['group_id', 'category']).doUpdateSet({ options: text }))
        .compile();
    }
  }
}

const touched = (result: QueryResult<unknown>): boolean => (result.numAffectedRows ?? 0n) > 0n;

/** A change of members changes the group as SCIM shows it: its updated_at follows. */
const isMembership = (change: GroupWrite): change is Extract<GroupWrite, { userId: string }> =>
  change.kind === 'addMember' || change.kind === 'removeMember';

function groupTouched(db: Db, groupId: string, at: number, onlyIfChanged: boolean): CompiledQuery {
  const update = db.updateTable('groups').set({ updated_at: at }).where('id', '=', groupId);
  // SQLite's changes(): the rows the statement before changed (the membership's).
  return (onlyIfChanged ? update.where(sql<boolean>`changes() > 0`) : update).compile();
}

/**
 * The embedded store's transaction of group writes, run without giving the thread back between its
 * statements: SQLite waits for another connection's lock without yielding, so a transaction held
 * across awaits would hold up a second connection of the same process (the CLI run in-process
 * beside a server) until busy_timeout. Each audit entry is inserted only when the statement before
 * it changed a row (SQLite's changes()).
 */
async function sqliteWrite(
  db: Db,
  writes: readonly AuditedGroupWrite[],
  at: number,
  stampKey: AuditStampKey | undefined,
): Promise<boolean[]> {
  const statements = writes.map(({ change, audit }) => ({
    change: changeStatement(db, change, at),
    touch: isMembership(change) ? groupTouched(db, change.groupId, at, true) : undefined,
    audit: audit === undefined ? undefined : auditInsertIfChanged(db, audit, at, stampKey),
  }));
  return db.getExecutor().provideConnection(async (connection) => {
    // The SQLite driver runs each statement as it is called: nothing below awaits until the commit.
    const answers: Promise<QueryResult<unknown>>[] = [];
    void connection.executeQuery(CompiledQuery.raw('begin immediate'));
    try {
      for (const statement of statements) {
        answers.push(connection.executeQuery(statement.change));
        // The group is there (its membership row refers to it): touched exactly when the change was.
        if (statement.touch !== undefined) void connection.executeQuery(statement.touch);
        if (statement.audit !== undefined) void connection.executeQuery(statement.audit);
      }
      void connection.executeQuery(CompiledQuery.raw('commit'));
    } catch (error) {
      try {
        void connection.executeQuery(CompiledQuery.raw('rollback'));
      } catch {
        // SQLite ended the transaction itself (a full disk): nothing is left to roll back.
      }
      throw error;
    }
    return (await Promise.all(answers)).map(touched);
  });
}

/**
 * Takes the rows of these groups for change, in the order of their ids: membership writers
 * (GroupRepository.write, BulkUserRepository.createMany) take their groups' rows first, in one
 * order, and so wait for each other instead of deadlocking on a membership row one holds and a
 * group row the other does. A change of members touches its group's row (updated_at).
 */
export async function lockGroupsInOrder(
  db: Db,
  dialect: Dialect,
  groupIds: readonly string[],
): Promise<void> {
  if (groupIds.length === 0) return;
  const query = db
    .selectFrom('groups')
    .select('id')
    .where('id', 'in', [...groupIds])
    .orderBy('id');
  await dialectSql(dialect).lockedForChange(query).execute();
}

/**
 * A user's policy of a category: the one of their groups of the highest priority, by name among
 * equals. The query of that rule, also a part of a larger statement: the embedded store's verification,
 * and (`userId` a column of the outer statement, policyOfUserColumn) a column of a session's read.
 */
export function policyOfUserQuery(db: Db, values: { userId: string | Expression<string>; category: string }) {
  return (
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
      .limit(sql.lit(1))
  );
}

/**
 * The same rule as a column of a larger statement: the options of the first policy of `category`
 * of the user that `userRef` (a column of the outer statement) names; null when none.
 */
export function policyOfUserColumn(db: Db, userRef: 'users.id' | 'sessions.user_id', category: string) {
  return policyOfUserQuery(db, { userId: sql.ref<string>(userRef), category });
}

/**
 * The two policies a statement read as columns `policy_first` and `policy_second`
 * (policyOfUserColumn), parsed (policyOptionsOf); undefined where the user has none.
 */
export function policyPairOfColumns(row: {
  policy_first: string | null;
  policy_second: string | null;
}): StoredPolicyPair {
  const optionsOf = (text: string | null) => (text === null ? undefined : policyOptionsOf(text));
  return [optionsOf(row.policy_first), optionsOf(row.policy_second)];
}

/** Parsed policy options, by their stored text: the policies are few, and read by every code's issue and use. */
const parsedPolicies = new Map<string, Readonly<Record<string, unknown>>>();
const PARSED_POLICIES_KEPT = 1_000;

/**
 * A policy's stored options, parsed once per text and frozen: the same object for the same text, so
 * that what the domain makes of it (policy.ts resolvePolicy) is made once too.
 */
export function policyOptionsOf(text: string): Record<string, unknown> {
  let parsed = parsedPolicies.get(text);
  if (parsed === undefined) {
    if (parsedPolicies.size >= PARSED_POLICIES_KEPT) parsedPolicies.clear();
    parsed = Object.freeze(parseJsonObject(text));
    parsedPolicies.set(text, parsed);
  }
  return parsed;
}

export function groupRepository(
  db: Db,
  dialect: Dialect,
  stampKey: AuditStampKey | undefined,
  hot: HotPath,
): GroupRepository {
  const insertAudit = auditInserter(db, stampKey);
  const sqlOf = dialectSql(dialect);
  return {
    async create(group) {
      await db
        .insertInto('groups')
        .values(groupRow({ ...group, source: group.source ?? 'local' }))
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
    async findForChange(id) {
      const query = db.selectFrom('groups').select(GROUP_COLUMNS).where('id', '=', id);
      const row = await sqlOf.lockedForChange(query).executeTakeFirst();
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
    async listOfSourceWhere(source, filter, order) {
      const selected = db
        .selectFrom('groups')
        .select(GROUP_COLUMNS)
        .where('source', '=', source)
        .where(whereOf(filter, groupFilterColumn, dialect));
      const rows = await (order === undefined
        ? selected.orderBy('priority', 'desc').orderBy('name')
        : orderTermsOf(order, groupFilterColumn, dialect)
            .reduce((query, term) => query.orderBy(term), selected)
            .orderBy('groups.id')
      ).execute();
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
    // Every code issued or verified asks for its user's policy: the hot path's read.
    async findPolicyOfUser(userId, category) {
      const options = await hot.policyOfUser(userId, category);
      return options === undefined ? undefined : policyOptionsOf(options);
    },
    async findPoliciesOfUser(userId, categories) {
      const texts = await hot.policiesOfUser(userId, categories);
      const optionsOf = (category: string) => {
        const text = texts.get(category);
        return text === undefined ? undefined : policyOptionsOf(text);
      };
      return [optionsOf(categories[0]), optionsOf(categories[1])];
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
    async write(writes, at) {
      // Each change and its audit entry commit together with the others, or nothing does.
      const writeAll = async (trx: Db): Promise<boolean[]> => {
        // A change of members also touches its group's row (updated_at). Writers that take the
        // rows of their groups first, in one order, wait for each other instead of deadlocking
        // on a membership row one holds and a group row the other does.
        const membershipGroups = [
          ...new Set(writes.flatMap(({ change }) => (isMembership(change) ? [change.groupId] : []))),
        ];
        await lockGroupsInOrder(trx, dialect, membershipGroups);
        const changed: boolean[] = [];
        for (const { change, audit } of writes) {
          const done = touched(await trx.executeQuery(changeStatement(trx, change, at)));
          if (done && isMembership(change))
            await trx.executeQuery(groupTouched(trx, change.groupId, at, false));
          if (done && audit !== undefined) await insertAudit(trx, audit, at);
          changed.push(done);
        }
        return changed;
      };
      // Within a transaction of the store (Store.transaction), they are part of it.
      if (db.isTransaction) return writeAll(db);
      if (dialect === 'sqlite') return sqliteWrite(db, writes, at, stampKey);
      return db.transaction().execute(writeAll);
    },
  };
}
