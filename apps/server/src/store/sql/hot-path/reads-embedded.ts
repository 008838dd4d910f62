import type { Username } from '@dea/contract';
import { sql, type Selectable } from 'kysely';
import type { ServiceKeysTable, UsersTable } from '../../database.js';
import { CHANNEL_COLUMNS, CHANNEL_ORDER, channelsOfRows } from '../channels.js';
import { compiledOnce } from '../compiled-once.js';
import { parseJsonObject, type Db } from '../db.js';
import { policyOfUserColumn, policyOfUserQuery, policyPairOfColumns } from '../groups.js';
import { SERVICE_KEY_COLUMNS, toServiceKey } from '../service-key-rows.js';
import { sessionOf, type SessionRow, sessionsWithUsers } from '../sessions.js';
import { toUser, USER_COLUMNS } from '../user-row.js';
import type { HotPath } from './hot-path.js';

/** A user's channels in the order every reader lists them, compiled once (also within a transaction). */
export function channelsOfUserStatement(db: Db) {
  return compiledOnce(db, (values: { userId: string }) =>
    db
      .selectFrom('channels')
      .select(CHANNEL_COLUMNS)
      .where('user_id', '=', values.userId)
      .orderBy(CHANNEL_ORDER[0])
      .orderBy(CHANNEL_ORDER[1]),
  );
}

/**
 * A user's policy of a category (the rule of groups.ts policyOfUserQuery), compiled once: the
 * policy read, and the embedded store's verification.
 */
export function policyOfUserStatement(db: Db) {
  return compiledOnce(db, (values: { userId: string; category: string }) => policyOfUserQuery(db, values));
}

/**
 * The hot path's reads on the embedded store: a read costs no round trip there, but each statement
 * costs a call into SQLite and a row made: a call that needs two things reads them in one (the
 * session with its policies, the key with its user). Each is compiled once (compiled-once.ts: no
 * query built or compiled again per request).
 */
export function embeddedReads(db: Db): Omit<HotPath, 'issueCode' | 'verifyCode'> {
  const userById = compiledOnce(db, (values: { id: string }) =>
    db.selectFrom('users').selectAll().where('id', '=', values.id),
  );
  const userByUsername = compiledOnce(db, (values: { username: Username }) =>
    db.selectFrom('users').selectAll().where('username', '=', values.username),
  );
  const session = compiledOnce(db, (values: { idHash: string }) =>
    sessionsWithUsers(db).where('sessions.id_hash', '=', values.idHash),
  );
  // The session with its user's policies of two categories, as on PostgreSQL: one statement where
  // a code on screen took two (docs/benchmarks.md, "Verification against a bare route").
  const sessionWithPolicies = compiledOnce(db, (values: { idHash: string; first: string; second: string }) =>
    sessionsWithUsers(db)
      .select([
        policyOfUserColumn(db, 'sessions.user_id', values.first).as('policy_first'),
        policyOfUserColumn(db, 'sessions.user_id', values.second).as('policy_second'),
      ])
      .where('sessions.id_hash', '=', values.idHash),
  );
  const channelsOfUser = channelsOfUserStatement(db);
  const policyOfUser = policyOfUserStatement(db);
  // Both categories' policies: the rows of both, in the order that decides (the first row of each
  // category is its policy).
  const twoPoliciesOfUser = compiledOnce(db, (values: { userId: string; first: string; second: string }) =>
    db
      .selectFrom('policies')
      .innerJoin('user_groups', 'user_groups.group_id', 'policies.group_id')
      .innerJoin('groups', 'groups.id', 'policies.group_id')
      .select(['policies.category', 'policies.options'])
      .where('user_groups.user_id', '=', values.userId)
      .where('policies.category', 'in', [values.first, values.second])
      .orderBy('groups.priority', 'desc')
      .orderBy('groups.name'),
  );
  const serviceKey = compiledOnce(db, (values: { id: string }) =>
    db.selectFrom('service_keys').selectAll().where('id', '=', values.id),
  );
  // A service key and the user a verification names (by id or by name), in one statement: each is
  // a left join of one row, its columns prefixed (k_, u_) and null when there is none.
  const keyWithUserBy = (by: 'id' | 'username') =>
    compiledOnce(db, (values: { keyId: string; user: string }) =>
      db
        .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
        .leftJoin('service_keys', (join) => join.on('service_keys.id', '=', values.keyId))
        .leftJoin('users', (join) => join.on(`users.${by}`, '=', values.user))
        .select([
          ...SERVICE_KEY_COLUMNS.map((column) => sql.ref(`service_keys.${column}`).as(`k_${column}`)),
          ...USER_COLUMNS.map((column) => sql.ref(`users.${column}`).as(`u_${column}`)),
        ]),
    );
  const keyWithUserById = keyWithUserBy('id');
  const keyWithUserByName = keyWithUserBy('username');
  const unprefixed = (row: Record<string, unknown>, prefix: string, columns: readonly string[]) =>
    row[`${prefix}id`] === null
      ? undefined
      : Object.fromEntries(columns.map((column) => [column, row[`${prefix}${column}`]]));

  const reads: Omit<HotPath, 'issueCode' | 'verifyCode'> = {
    async userById(id) {
      const row = (await userById.run(db, { id })).rows[0];
      return row && toUser(row);
    },
    async userByUsername(username) {
      const row = (await userByUsername.run(db, { username })).rows[0];
      return row && toUser(row);
    },
    async userWithPolicy(username, category) {
      const row = (await userByUsername.run(db, { username })).rows[0];
      if (row === undefined) return undefined;
      const stored = (await policyOfUser.run(db, { userId: row.id, category })).rows[0];
      return { user: toUser(row), policy: stored && parseJsonObject(stored.options) };
    },
    async session(idHash) {
      const row = (await session.run(db, { idHash })).rows[0];
      return row && sessionOf(row as SessionRow);
    },
    async sessionWithPolicies(idHash, [first, second]) {
      const row = (await sessionWithPolicies.run(db, { idHash, first, second })).rows[0] as
        | (SessionRow & { policy_first: string | null; policy_second: string | null })
        | undefined;
      return row && { ...sessionOf(row), policies: policyPairOfColumns(row) };
    },
    async channelsOfUser(userId) {
      return channelsOfRows((await channelsOfUser.run(db, { userId })).rows);
    },
    async policyOfUser(userId, category) {
      return (await policyOfUser.run(db, { userId, category })).rows[0]?.options;
    },
    async policiesOfUser(userId, [first, second]) {
      const texts = new Map<string, string>();
      for (const row of (await twoPoliciesOfUser.run(db, { userId, first, second })).rows)
        if (!texts.has(row.category)) texts.set(row.category, row.options);
      return texts;
    },
    async serviceKey(id) {
      const row = (await serviceKey.run(db, { id })).rows[0];
      return row && toServiceKey(row);
    },
    async serviceKeyWithUser(keyId, named) {
      const [read, user] = 'id' in named ? [keyWithUserById, named.id] : [keyWithUserByName, named.username];
      const row = (await read.run(db, { keyId, user })).rows[0] as Record<string, unknown>;
      const key = unprefixed(row, 'k_', SERVICE_KEY_COLUMNS);
      const found = unprefixed(row, 'u_', USER_COLUMNS);
      return {
        serviceKey: key && toServiceKey(key as Selectable<ServiceKeysTable>),
        user: found && toUser(found as Selectable<UsersTable>),
      };
    },
  };
  return reads;
}
