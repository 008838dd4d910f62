import type { Username } from '@dea/contract';
import { CHANNEL_COLUMNS, CHANNEL_ORDER, channelsOfRows } from '../channels.js';
import { compiledOnce } from '../compiled-once.js';
import { parseJsonObject, type Db } from '../db.js';
import { policyOfUserQuery } from '../groups.js';
import { toServiceKey } from '../service-key-rows.js';
import { sessionOf, type SessionRow, sessionsWithUsers } from '../sessions.js';
import { toUser } from '../user-row.js';
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
 * The hot path's reads on the embedded store: a read costs no round trip there, so each is one
 * statement, compiled once (compiled-once.ts: no query built or compiled again per request).
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
    sessionWithPolicies: (idHash) => reads.session(idHash),
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
      return {
        serviceKey: await reads.serviceKey(keyId),
        user: 'id' in named ? await reads.userById(named.id) : await reads.userByUsername(named.username),
      };
    },
  };
  return reads;
}
