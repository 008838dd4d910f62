import type { Db } from './db.js';

/** A registration session, or its challenge before it is opened. */
export interface RegistrationSession {
  id: string;
  userId: string;
  /** How it was opened: channel-code, link (and, later, passkey, oidc). */
  method: string;
  channelId: string | null;
  codeHash: string | null;
  triesLeft: number;
  createdAt: number;
  expiresAt: number;
  openedAt: number | null;
}

export interface RegistrationRepository {
  /** A challenge: a code sent to a proven channel, to be typed back. */
  addChallenge(challenge: Omit<RegistrationSession, 'openedAt'>): Promise<void>;
  findChallenge(userId: string, id: string): Promise<RegistrationSession | undefined>;
  /** Takes one try of an unopened, unexpired challenge in one statement; undefined when none is left. */
  takeChallengeTry(userId: string, id: string, now: number): Promise<RegistrationSession | undefined>;
  /** Opens a challenge with its token: true for the one caller that opened it. */
  openChallenge(id: string, tokenHash: string, at: number, expiresAt: number): Promise<boolean>;
  /** A session opened at once (by a registration link). */
  addOpen(
    session: Omit<RegistrationSession, 'codeHash' | 'triesLeft'> & { tokenHash: string },
  ): Promise<void>;
  /** The open, unexpired session of the user with one of these token hashes. */
  findOpen(
    userId: string,
    tokenHashes: readonly string[],
    now: number,
  ): Promise<RegistrationSession | undefined>;
  addLink(link: {
    tokenHash: string;
    userId: string;
    createdBy: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<void>;
  /** Ends the user's unused, unexpired links (a newer one replaces them); answers how many. */
  revokeLinks(userId: string, at: number): Promise<number>;
  /** Uses the user's unused, unexpired link: true for the one caller that did. */
  useLink(userId: string, tokenHashes: readonly string[], at: number): Promise<boolean>;
  /**
   * Ends every registration session of the user, open or still a challenge, and their flows at the
   * identity provider: nothing of theirs opens or keeps a registration after `at`. Answers how many
   * sessions and challenges ended.
   */
  endAllOfUser(userId: string, at: number): Promise<number>;
  /** When the earliest of the user's registration sessions open at `at` was opened (undefined: none was). */
  earliestOpenAt(userId: string, at: number): Promise<number | undefined>;
  /** The user's registration sessions opened at `since` or later, oldest first. */
  openedSince(userId: string, since: number): Promise<RegistrationSession[]>;
  addOidcFlow(flow: RegistrationOidcFlow): Promise<void>;
  /** Takes the user's flow of that state once (made after `since`); undefined for any other. */
  takeOidcFlow(userId: string, state: string, since: number): Promise<RegistrationOidcFlow | undefined>;
}

export interface RegistrationOidcFlow {
  state: string;
  userId: string;
  nonce: string;
  codeVerifier: string;
  createdAt: number;
}

interface Row {
  id: string;
  user_id: string;
  method: string;
  channel_id: string | null;
  code_hash: string | null;
  tries_left: number | string;
  created_at: number | string;
  expires_at: number | string;
  opened_at: number | string | null;
}

const toSession = (row: Row): RegistrationSession => ({
  id: row.id,
  userId: row.user_id,
  method: row.method,
  channelId: row.channel_id,
  codeHash: row.code_hash,
  triesLeft: Number(row.tries_left),
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  openedAt: row.opened_at === null ? null : Number(row.opened_at),
});

export function registrationRepository(db: Db): RegistrationRepository {
  return {
    async addChallenge(challenge) {
      await db
        .insertInto('registration_sessions')
        .values({
          id: challenge.id,
          user_id: challenge.userId,
          method: challenge.method,
          channel_id: challenge.channelId,
          code_hash: challenge.codeHash,
          tries_left: challenge.triesLeft,
          token_hash: null,
          created_at: challenge.createdAt,
          expires_at: challenge.expiresAt,
          opened_at: null,
        })
        .execute();
    },
    async findChallenge(userId, id) {
      const row = await db
        .selectFrom('registration_sessions')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row === undefined ? undefined : toSession(row);
    },
    async takeChallengeTry(userId, id, now) {
      const row = await db
        .updateTable('registration_sessions')
        .set((eb) => ({ tries_left: eb('tries_left', '-', 1) }))
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('opened_at', 'is', null)
        .where('tries_left', '>', 0)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toSession(row);
    },
    async openChallenge(id, tokenHash, at, expiresAt) {
      const result = await db
        .updateTable('registration_sessions')
        .set({ token_hash: tokenHash, opened_at: at, expires_at: expiresAt, code_hash: null })
        .where('id', '=', id)
        .where('opened_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async addOpen(session) {
      await db
        .insertInto('registration_sessions')
        .values({
          id: session.id,
          user_id: session.userId,
          method: session.method,
          channel_id: session.channelId,
          code_hash: null,
          tries_left: 0,
          token_hash: session.tokenHash,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
          opened_at: session.openedAt,
        })
        .execute();
    },
    async findOpen(userId, tokenHashes, now) {
      if (tokenHashes.length === 0) return undefined;
      const row = await db
        .selectFrom('registration_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('token_hash', 'in', [...tokenHashes])
        .where('opened_at', 'is not', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row === undefined ? undefined : toSession(row);
    },
    async addLink(link) {
      await db
        .insertInto('registration_links')
        .values({
          token_hash: link.tokenHash,
          user_id: link.userId,
          created_by: link.createdBy,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          used_at: null,
        })
        .execute();
    },
    async revokeLinks(userId, at) {
      const result = await db
        .updateTable('registration_links')
        .set({ expires_at: at })
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async endAllOfUser(userId, at) {
      const result = await db
        .updateTable('registration_sessions')
        .set({ expires_at: at })
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      await db.deleteFrom('registration_oidc_flows').where('user_id', '=', userId).execute();
      return Number(result.numUpdatedRows);
    },
    async earliestOpenAt(userId, at) {
      const row = await db
        .selectFrom('registration_sessions')
        .select((eb) => eb.fn.min<number | string | null>('opened_at').as('earliest'))
        .where('user_id', '=', userId)
        .where('opened_at', 'is not', null)
        .where('opened_at', '<=', at)
        .where('expires_at', '>=', at)
        .executeTakeFirst();
      return row?.earliest === null || row?.earliest === undefined ? undefined : Number(row.earliest);
    },
    async openedSince(userId, since) {
      const rows = await db
        .selectFrom('registration_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('opened_at', '>=', since)
        .orderBy('opened_at')
        .execute();
      return rows.map(toSession);
    },
    async addOidcFlow(flow) {
      await db
        .insertInto('registration_oidc_flows')
        .values({
          state: flow.state,
          user_id: flow.userId,
          nonce: flow.nonce,
          code_verifier: flow.codeVerifier,
          created_at: flow.createdAt,
        })
        .execute();
    },
    async takeOidcFlow(userId, state, since) {
      const row = await db
        .deleteFrom('registration_oidc_flows')
        .where('state', '=', state)
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return {
        state: row.state,
        userId: row.user_id,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        createdAt: Number(row.created_at),
      };
    },
    async useLink(userId, tokenHashes, at) {
      if (tokenHashes.length === 0) return false;
      const result = await db
        .updateTable('registration_links')
        .set({ used_at: at })
        .where('user_id', '=', userId)
        .where('token_hash', 'in', [...tokenHashes])
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
