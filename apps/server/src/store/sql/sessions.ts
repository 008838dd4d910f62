import type { User } from '../store.js';
import type { Selectable } from 'kysely';
import type { UsersTable } from '../database.js';
import { toUser, USER_COLUMNS } from './user-row.js';
import type { Db } from './db.js';
import type { HotPath } from './hot-path/hot-path.js';

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
   * The session with its user and the user's policies of two categories, in one statement (a call
   * that needs them saves a statement, and on PostgreSQL a round trip).
   */
  findWithPolicies(
    idHash: string,
    categories: readonly [string, string],
  ): Promise<(SessionWithUser & { policies: StoredPolicyPair }) | undefined>;
  touch(idHash: string, at: number): Promise<void>;
  /** Ends the session; answers its user's id when it was open, else undefined. */
  end(idHash: string, at: number): Promise<string | undefined>;
  /** The user's sessions that have not ended, newest first. */
  listOpenOfUser(userId: string): Promise<Session[]>;
  /** Ends every open session of the user; answers how many. */
  endAllOfUser(userId: string, at: number): Promise<number>;
}

export type SessionRow = Omit<Selectable<UsersTable>, 'id'> & {
  id: string | null;
  session_id_hash: string;
  session_user_id: string;
  session_created_at: number;
  session_last_seen_at: number;
  session_ended_at: number | null;
};

export function sessionOf(row: SessionRow): SessionWithUser {
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

/** Sessions with their users' columns (a session whose user is gone: the user's columns null). */
export function sessionsWithUsers(db: Db) {
  return db
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
}

export function sessionRepository(db: Db, hot: HotPath): SessionRepository {
  // Every signed-in call reads its session: the hot path's read.
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
    find: (idHash) => hot.session(idHash),
    findWithPolicies: (idHash, categories) => hot.sessionWithPolicies(idHash, categories),
    async touch(idHash, at) {
      await db
        .updateTable('sessions')
        .set({ last_seen_at: at })
        .where('id_hash', '=', idHash)
        .where('last_seen_at', '<', at)
        .execute();
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
