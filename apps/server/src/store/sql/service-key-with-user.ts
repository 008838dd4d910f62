import type { Username } from '@dea/contract';
import { CompiledQuery, type Selectable } from 'kysely';
import type { ServiceKeysTable, UsersTable } from '../database.js';
import { PREPARED_MARK } from '../prepared-statements.js';
import { gatheredByTurn } from './by-turn.js';
import type { Db, Dialect } from './db.js';
import { SERVICE_KEY_COLUMNS, type ServiceKey, toServiceKey } from './service-key-rows.js';
import { toUser, USER_COLUMNS } from './user-row.js';
import type { User } from './users.js';

/** The user a verification names: by id, or by canonical user name. */
export type NamedUser = { id: string } | { username: Username };

/** A service key and the user a verification names, as one read found them (undefined: none). */
export interface ServiceKeyWithUser {
  serviceKey: ServiceKey | undefined;
  user: User | undefined;
}

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

interface Read {
  keyId: string;
  named: NamedUser;
}

/**
 * A service key with the user a verification names, read together (tempPass/verify needs both
 * before anything else): on PostgreSQL one statement, and the reads of one turn of the event loop
 * one round trip, where the key and the user took one each in turn. On the embedded store, whose
 * reads cost no round trip, the two reads as they are.
 */
export function serviceKeyWithUserReader(
  db: Db,
  dialect: Dialect,
  separately: {
    key: (id: string) => Promise<ServiceKey | undefined>;
    userById: (id: string) => Promise<User | undefined>;
    userByName: (username: Username) => Promise<User | undefined>;
  },
): (keyId: string, named: NamedUser) => Promise<ServiceKeyWithUser> {
  const readMany = async (reads: readonly Read[]): Promise<ServiceKeyWithUser[]> => {
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
  const gathered = gatheredByTurn(readMany, async (read: Read) => (await readMany([read]))[0]!);
  return async (keyId, named) => {
    if (dialect === 'postgres') return gathered({ keyId, named });
    return {
      serviceKey: await separately.key(keyId),
      user: 'id' in named ? await separately.userById(named.id) : await separately.userByName(named.username),
    };
  };
}
