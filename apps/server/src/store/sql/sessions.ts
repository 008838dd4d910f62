import type { User } from '../store.js';
import { sql, type Selectable } from 'kysely';
import type { UsersTable } from '../database.js';
import { readsGatheredByTurn } from './by-turn.js';
import { compiledOnce } from './compiled-once.js';
import { toUser, USER_COLUMNS } from './user-row.js';
import type { Db, Dialect } from './db.js';
import { policyOfUserColumn, policyOptionsOf } from './groups.js';

/** A session with its user (undefined when the user is gone). */
export type SessionWithUser = Session & { user: User | undefined };

/** The stored options of the user's policies of two categories, in their order (undefined: none). */
export type StoredPolicyPair = [Record<string, unknown> | undefined, Record<string, unknown> | undefined];

export interface Session {
  idHash: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
}

export interface SessionRepository {
  create(session: Omit<Session, 'endedAt'>): Promise<void>;
  /** The session with its user (undefined when the user is gone), in one query: every signed-in call asks. */
  find(idHash: string): Promise<SessionWithUser | undefined>;
  /**
   * The session with its user and the user's policies of two categories: on PostgreSQL in the same
   * statement (a call that needs them saves their round trip); on the embedded store, where a read
   * costs no round trip, `policies` is left out and the caller reads them when it needs them.
   */
  findWithPolicies(
    idHash: string,
    categories: readonly [string, string],
  ): Promise<(SessionWithUser & { policies?: StoredPolicyPair }) | undefined>;
  touch(idHash: string, at: number): Promise<void>;
  /** Ends the session; answers its user's id when it was open, else undefined. */
  end(idHash: string, at: number): Promise<string | undefined>;
  /** The user's sessions that have not ended, newest first. */
  listOpenOfUser(userId: string): Promise<Session[]>;
  /** Ends every open session of the user; answers how many. */
  endAllOfUser(userId: string, at: number): Promise<number>;
}

type SessionRow = Omit<Selectable<UsersTable>, 'id'> & {
  id: string | null;
  session_id_hash: string;
  session_user_id: string;
  session_created_at: number;
  session_last_seen_at: number;
  session_ended_at: number | null;
};

function sessionOf(row: SessionRow): SessionWithUser {
  // toUser reads the user's columns by name: no copy of the row without the session's (an object
  // rest of 23 columns, a measurable part of every signed-in call).
  return {
    idHash: row.session_id_hash,
    userId: row.session_user_id,
    createdAt: Number(row.session_created_at),
    lastSeenAt: Number(row.session_last_seen_at),
    endedAt: row.session_ended_at === null ? null : Number(row.session_ended_at),
    user: hasUser(row) ? toUser(row) : undefined,
  };
}

const hasUser = (row: SessionRow): row is SessionRow & { id: string } => row.id !== null;

export function sessionRepository(db: Db, dialect: Dialect): SessionRepository {
  // Every signed-in call reads its session, and now and then moves its last-seen time.
  const withUser = () =>
    db
      .selectFrom('sessions')
      .leftJoin('users', 'users.id', 'sessions.user_id')
      .select(USER_COLUMNS.map((column) => `users.${column}` as const))
      .select([
        'sessions.id_hash as session_id_hash',
        'sessions.user_id as session_user_id',
        'sessions.created_at as session_created_at',
        'sessions.last_seen_at as session_last_seen_at',
        'sessions.ended_at as session_ended_at',
      ]);
  const findWithUser = compiledOnce(db, (values: { idHash: string }) =>
    withUser().where('sessions.id_hash', '=', values.idHash),
  );
  // On PostgreSQL the sessions read in one turn of the event loop are read in one round trip.
  const findManyWithUser = compiledOnce(
    db,
    (values: { idHashes: string[] }) =>
      withUser().where('sessions.id_hash', '=', sql<string>`any(${values.idHashes})`),
    { prepared: true },
  );
  const findGathered = readsGatheredByTurn(async (idHashes: string[]) => {
    const { rows } = await findManyWithUser.run(db, { idHashes });
    return new Map(rows.map((row) => [row.session_id_hash, sessionOf(row as SessionRow)]));
  });
  // With the user's policies of two categories (the rule of groups.ts, as columns).
  const findManyWithPolicies = compiledOnce(
    db,
    (values: { idHashes: string[]; first: string; second: string }) =>
      withUser()
        .select([
          policyOfUserColumn(db, 'sessions.user_id', values.first).as('policy_first'),
          policyOfUserColumn(db, 'sessions.user_id', values.second).as('policy_second'),
        ])
        .where('sessions.id_hash', '=', sql<string>`any(${values.idHashes})`),
    { prepared: true },
  );
  const withPoliciesGathered = new Map<
    string,
    (idHash: string) => Promise<(SessionWithUser & { policies: StoredPolicyPair }) | undefined>
  >();
  const optionsOf = (text: string | null) => (text === null ? undefined : policyOptionsOf(text));
  const touch = compiledOnce(db, (values: { idHash: string; at: number }) =>
    db
      .updateTable('sessions')
      .set({ last_seen_at: values.at })
      .where('id_hash', '=', values.idHash)
      .where('last_seen_at', '<', values.at),
  );
  return {
    async create(session) {
      await db
        .insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
          ended_at: null,
        })
        .execute();
    },
    async find(idHash) {
      if (dialect === 'postgres') return findGathered(idHash);
      const row = (await findWithUser.run(db, { idHash })).rows[0];
      return row && sessionOf(row as SessionRow);
    },
    async findWithPolicies(idHash, categories) {
      if (dialect !== 'postgres') return this.find(idHash);
      const [first, second] = categories;
      const key = `${first}\n${second}`;
      let read = withPoliciesGathered.get(key);
      if (read === undefined) {
        read = readsGatheredByTurn(async (idHashes: string[]) => {
          const { rows } = await findManyWithPolicies.run(db, { idHashes, first, second });
          return new Map(
            rows.map((row) => {
              const found = row as SessionRow & { policy_first: string | null; policy_second: string | null };
              const policies: StoredPolicyPair = [
                optionsOf(found.policy_first),
                optionsOf(found.policy_second),
              ];
              return [found.session_id_hash, { ...sessionOf(found), policies }];
            }),
          );
        });
        withPoliciesGathered.set(key, read);
      }
      return read(idHash);
    },
    async touch(idHash, at) {
      await touch.run(db, { idHash, at });
    },
    async end(idHash, at) {
      const row = await db
        .updateTable('sessions')
        .set({ ended_at: at })
        .where('id_hash', '=', idHash)
        .where('ended_at', 'is', null)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },
    async listOpenOfUser(userId) {
      const rows = await db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map((row) => ({
        idHash: row.id_hash,
        userId: row.user_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        endedAt: null,
      }));
    },
    async endAllOfUser(userId, at) {
      const result = await db
        .updateTable('sessions')
        .set({ ended_at: at })
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
