import type { Username } from '@dea/contract';
import { CompiledQuery, sql, type Selectable } from 'kysely';
import type { ServiceKeysTable, UsersTable } from '../../database.js';
import { PREPARED_MARK } from '../../prepared-statements.js';
import { type Channel, CHANNEL_COLUMNS, CHANNEL_ORDER, isKnownChannelRow, toChannel } from '../channels.js';
import { compiledOnce } from '../compiled-once.js';
import { parseJsonObject, type Db } from '../db.js';
import { policyOfUserColumn, policyPairOfColumns } from '../groups.js';
import { SERVICE_KEY_COLUMNS, toServiceKey } from '../service-key-rows.js';
import type { NamedUser, ServiceKeyWithUser } from '../service-keys.js';
import { sessionOf, type SessionRow, sessionsWithUsers } from '../sessions.js';
import { toUser, USER_COLUMNS } from '../user-row.js';
import type { UserWithPolicy } from '../users.js';
import { gatheredByTurn, readsGatheredByTurn } from './by-turn.js';
import type { HotPath } from './hot-path.js';

const userColumns = USER_COLUMNS.map((column) => `"${column}"`).join(', ');

/**
 * Each read's key and user, by row of arrays (ordinality answers which read a row is). The user by
 * id or by name, whichever the read gives (the other is null): one index lookup either way. Named
 * columns, not `*`: a prepared statement's meaning must not change under a migration.
 */
const KEYS_WITH_USERS = `${PREPARED_MARK}select t.ord,
  (select to_json(k) from (select ${SERVICE_KEY_COLUMNS.map((column) => `"${column}"`).join(', ')}
     from service_keys where id = t.key_id) k) as key_row,
  (select to_json(u) from (select ${userColumns} from users where id = t.user_id
     union all select ${userColumns} from users where username = t.username limit 1) u) as user_row
  from unnest($1::text[], $2::text[], $3::text[]) with ordinality as t(key_id, user_id, username, ord)`;

/** One gathered read per value of `part` (a category, a pair of them), made when first asked. */
function perPart<P, K, V>(
  makeRead: (part: P) => (key: K) => Promise<V | undefined>,
): (part: P, name: string, key: K) => Promise<V | undefined> {
  const reads = new Map<string, (key: K) => Promise<V | undefined>>();
  return (part, name, key) => {
    let read = reads.get(name);
    if (read === undefined) reads.set(name, (read = makeRead(part)));
    return read(key);
  };
}

/**
 * The hot path's reads on PostgreSQL: the reads of one turn of the event loop by `= any($1)`, one
 * statement prepared once and one round trip for all of them, where each took one of its own.
 */
export function postgresReads(db: Db): Omit<HotPath, 'issueCode' | 'verifyCode'> {
  const usersByIds = compiledOnce(
    db,
    (values: { ids: string[] }) =>
      db.selectFrom('users').select(USER_COLUMNS).where('id', '=', sql<string>`any(${values.ids})`),
    { prepared: true },
  );
  const usersByNames = compiledOnce(
    db,
    (values: { usernames: Username[] }) =>
      db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where('username', '=', sql<Username>`any(${values.usernames})`),
    { prepared: true },
  );
  const usersWithPolicy = compiledOnce(
    db,
    (values: { usernames: Username[]; category: string }) =>
      db
        .selectFrom('users')
        .select(USER_COLUMNS.map((column) => `users.${column}` as const))
        .select(policyOfUserColumn(db, 'users.id', values.category).as('policy_options'))
        .where('users.username', '=', sql<Username>`any(${values.usernames})`),
    { prepared: true },
  );
  const sessions = compiledOnce(
    db,
    (values: { idHashes: string[] }) =>
      sessionsWithUsers(db).where('sessions.id_hash', '=', sql<string>`any(${values.idHashes})`),
    { prepared: true },
  );
  // With the user's policies of two categories (the rule of groups.ts, as columns).
  const sessionsWithPolicies = compiledOnce(
    db,
    (values: { idHashes: string[]; first: string; second: string }) =>
      sessionsWithUsers(db)
        .select([
          policyOfUserColumn(db, 'sessions.user_id', values.first).as('policy_first'),
          policyOfUserColumn(db, 'sessions.user_id', values.second).as('policy_second'),
        ])
        .where('sessions.id_hash', '=', sql<string>`any(${values.idHashes})`),
    { prepared: true },
  );
  const channels = compiledOnce(
    db,
    (values: { userIds: string[] }) =>
      db
        .selectFrom('channels')
        .select(CHANNEL_COLUMNS)
        .where('user_id', '=', sql<string>`any(${values.userIds})`)
        .orderBy('user_id')
        .orderBy(CHANNEL_ORDER[0])
        .orderBy(CHANNEL_ORDER[1]),
    { prepared: true },
  );
  // Each user's first policy of the category: the order of groups.ts's rule.
  const policies = compiledOnce(
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
  const twoPolicies = compiledOnce(
    db,
    (values: { userIds: string[]; categories: string[] }) =>
      db
        .selectFrom('policies')
        .innerJoin('user_groups', 'user_groups.group_id', 'policies.group_id')
        .innerJoin('groups', 'groups.id', 'policies.group_id')
        .distinctOn(['user_groups.user_id', 'policies.category'])
        .select(['user_groups.user_id', 'policies.category', 'policies.options'])
        .where('user_groups.user_id', '=', sql<string>`any(${values.userIds})`)
        .where('policies.category', '=', sql<string>`any(${values.categories})`)
        .orderBy('user_groups.user_id')
        .orderBy('policies.category')
        .orderBy('groups.priority', 'desc')
        .orderBy('groups.name'),
    { prepared: true },
  );
  const serviceKeys = compiledOnce(
    db,
    (values: { ids: string[] }) =>
      db
        .selectFrom('service_keys')
        .select(SERVICE_KEY_COLUMNS)
        .where('id', '=', sql<string>`any(${values.ids})`),
    { prepared: true },
  );
  const keysWithUsers = async (
    reads: readonly { keyId: string; named: NamedUser }[],
  ): Promise<ServiceKeyWithUser[]> => {
    const result = await db.executeQuery<{
      ord: number | string;
      key_row: Selectable<ServiceKeysTable> | null;
      user_row: Selectable<UsersTable> | null;
    }>(
      CompiledQuery.raw(KEYS_WITH_USERS, [
        reads.map((read) => read.keyId),
        // An id PostgreSQL's text cannot hold (a NUL) names nobody, as on the embedded store: no
        // error for a request whose key is not yet checked, nor for the others of its turn.
        reads.map((read) => ('id' in read.named && !read.named.id.includes('\u0000') ? read.named.id : null)),
        reads.map((read) => ('username' in read.named ? read.named.username : null)),
      ]),
    );
    const found = new Array<ServiceKeyWithUser>(reads.length);
    for (const row of result.rows)
      found[Number(row.ord) - 1] = {
        serviceKey: row.key_row === null ? undefined : toServiceKey(row.key_row),
        user: row.user_row === null ? undefined : toUser(row.user_row),
      };
    return found;
  };

  const sessionWithPolicies = perPart((categories: readonly [string, string]) =>
    readsGatheredByTurn(async (idHashes: string[]) => {
      const [first, second] = categories;
      const { rows } = await sessionsWithPolicies.run(db, { idHashes, first, second });
      return new Map(
        rows.map((row) => {
          const found = row as SessionRow & { policy_first: string | null; policy_second: string | null };
          return [found.session_id_hash, { ...sessionOf(found), policies: policyPairOfColumns(found) }];
        }),
      );
    }),
  );
  const userWithPolicy = perPart((category: string) =>
    readsGatheredByTurn(async (usernames: Username[]) => {
      const { rows } = await usersWithPolicy.run(db, { usernames, category });
      return new Map(
        rows.map((row): [Username, UserWithPolicy] => {
          const { policy_options: options, ...user } = row as Selectable<UsersTable> & {
            policy_options: string | null;
          };
          return [
            user.username,
            { user: toUser(user), policy: options === null ? undefined : parseJsonObject(options) },
          ];
        }),
      );
    }),
  );
  const policyOfUser = perPart((category: string) =>
    readsGatheredByTurn(async (userIds: string[]) => {
      const { rows } = await policies.run(db, { userIds, category });
      return new Map(rows.map((row) => [row.user_id, row.options]));
    }),
  );
  const policiesOfUser = perPart((categories: readonly [string, string]) =>
    readsGatheredByTurn(async (userIds: string[]) => {
      const { rows } = await twoPolicies.run(db, { userIds, categories: [...categories] });
      const found = new Map<string, Map<string, string>>();
      for (const row of rows) {
        let ofUser = found.get(row.user_id);
        if (ofUser === undefined) found.set(row.user_id, (ofUser = new Map<string, string>()));
        ofUser.set(row.category, row.options);
      }
      return found;
    }),
  );
  const channelsOfUser = readsGatheredByTurn(async (userIds: string[]) => {
    const byUser = new Map<string, Channel[]>();
    for (const row of (await channels.run(db, { userIds })).rows) {
      if (!isKnownChannelRow(row)) continue;
      const ofUser = byUser.get(row.user_id) ?? [];
      ofUser.push(toChannel(row));
      byUser.set(row.user_id, ofUser);
    }
    return byUser;
  });
  const serviceKeyWithUser = gatheredByTurn(
    keysWithUsers,
    async (read: { keyId: string; named: NamedUser }) => {
      const [found] = await keysWithUsers([read]);
      return found!;
    },
  );

  return {
    userById: readsGatheredByTurn(async (ids: string[]) => {
      const { rows } = await usersByIds.run(db, { ids });
      return new Map(rows.map((row) => [row.id, toUser(row)]));
    }),
    userByUsername: readsGatheredByTurn(async (usernames: Username[]) => {
      const { rows } = await usersByNames.run(db, { usernames });
      return new Map(rows.map((row) => [row.username, toUser(row)]));
    }),
    userWithPolicy: (username, category) => userWithPolicy(category, category, username),
    session: readsGatheredByTurn(async (idHashes: string[]) => {
      const { rows } = await sessions.run(db, { idHashes });
      return new Map(rows.map((row) => [row.session_id_hash, sessionOf(row as SessionRow)]));
    }),
    sessionWithPolicies: (idHash, categories) =>
      sessionWithPolicies(categories, `${categories[0]}\n${categories[1]}`, idHash),
    channelsOfUser: async (userId) => (await channelsOfUser(userId)) ?? [],
    policyOfUser: (userId, category) => policyOfUser(category, category, userId),
    policiesOfUser: async (userId, categories) =>
      (await policiesOfUser(categories, `${categories[0]}\n${categories[1]}`, userId)) ?? new Map(),
    serviceKey: readsGatheredByTurn(async (ids: string[]) => {
      const { rows } = await serviceKeys.run(db, { ids });
      return new Map(rows.map((row) => [row.id, toServiceKey(row)]));
    }),
    serviceKeyWithUser: (keyId, named) => serviceKeyWithUser({ keyId, named }),
  };
}
