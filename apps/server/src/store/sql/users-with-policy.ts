import { type Username } from '@dea/contract';
import { sql, type Selectable } from 'kysely';
import type { UsersTable } from '../database.js';
import { readsGatheredByTurn } from './by-turn.js';
import { compiledOnce } from './compiled-once.js';
import { parseJsonObject, type Db, type Dialect } from './db.js';
import { policyOfUserColumn, policyOfUserStatement } from './groups.js';
import { toUser, USER_COLUMNS } from './user-row.js';
import type { User } from './users.js';

/** A user found by name, with their policy of one category (undefined: their groups set none). */
export interface UserWithPolicy {
  user: User;
  policy: Record<string, unknown> | undefined;
}

/**
 * A user by name and their policy of a category (the first of their groups by priority, then name,
 * as groups.findPolicyOfUser decides), for a door that needs both before anything else (RADIUS:
 * its reply attributes and whether the password comes with the code). On PostgreSQL the lookups of
 * one turn of the event loop are one query, one round trip where the two reads took two in turn;
 * on the embedded store two statements compiled once.
 */
export function userWithPolicyReader(
  db: Db,
  dialect: Dialect,
): (username: Username, category: string) => Promise<UserWithPolicy | undefined> {
  const byUsernames = compiledOnce(
    db,
    (values: { usernames: Username[]; category: string }) =>
      db
        .selectFrom('users')
        .select(USER_COLUMNS.map((column) => `users.${column}` as const))
        .select(policyOfUserColumn(db, 'users.id', values.category).as('policy_options'))
        .where('users.username', '=', sql<Username>`any(${values.usernames})`),
    { prepared: true },
  );
  const byUsername = compiledOnce(db, (values: { username: Username }) =>
    db.selectFrom('users').selectAll().where('username', '=', values.username),
  );
  const policyOfUser = policyOfUserStatement(db);
  const gatheredByCategory = new Map<string, (username: Username) => Promise<UserWithPolicy | undefined>>();
  return async (username, category) => {
    if (dialect !== 'postgres') {
      const row = (await byUsername.run(db, { username })).rows[0];
      if (row === undefined) return undefined;
      const stored = (await policyOfUser.run(db, { userId: row.id, category })).rows[0];
      return { user: toUser(row), policy: stored && parseJsonObject(stored.options) };
    }
    let read = gatheredByCategory.get(category);
    if (read === undefined) {
      read = readsGatheredByTurn(async (usernames: Username[]) => {
        const { rows } = await byUsernames.run(db, { usernames, category });
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
      });
      gatheredByCategory.set(category, read);
    }
    return read(username);
  };
}
