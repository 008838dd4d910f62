import type { ConsoleRole } from './console.js';
import type { Db } from './db.js';

/** A sign-in with the OpenID provider under way: what its callback must match, taken once. */
export interface ConsoleOidcFlow {
  /** SHA-256 of the flow cookie of the browser that began it. */
  browserHash: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A sign-in again before a sensitive action: the provider must authenticate the person anew. */
  again: boolean;
  createdAt: number;
}

/** A console session signed in with the OpenID provider. */
export interface ConsoleOidcSession {
  idHash: string;
  /** Sealed; null: the provider gave none. */
  refreshToken: string | null;
  /** The role the provider's claim last mapped to. */
  role: ConsoleRole;
  /** When its role was last taken from the provider. */
  rolesAt: number;
}

/** The console's OpenID Connect sign-in (migration 0022). */
export interface ConsoleOidcRepository {
  /** The console account of a provider's subject. */
  findAccountIdOf(issuer: string, subject: string): Promise<string | undefined>;
  linkIdentity(issuer: string, subject: string, accountId: string): Promise<void>;
  /** Keeps a flow; flows begun before `staleBefore` (abandoned sign-ins) are removed. */
  addFlow(flow: ConsoleOidcFlow, staleBefore: number): Promise<void>;
  /**
   * Takes the flow of a browser once: of two callbacks at once with the same cookie, one gets it
   * and the other undefined; a flow begun before `staleBefore` is removed and not given.
   */
  takeFlow(browserHash: string, staleBefore: number): Promise<ConsoleOidcFlow | undefined>;
  addSession(session: ConsoleOidcSession): Promise<void>;
  findSession(idHash: string): Promise<ConsoleOidcSession | undefined>;
  /**
   * Keeps what a refresh took from the provider (role, time, the refresh token when it rotated),
   * for the one caller that found the session's `rolesAt` as it read it: false when another
   * refresh (another instance) was kept first, whose result stands.
   */
  saveRefresh(
    idHash: string,
    readRolesAt: number,
    refreshed: { role: ConsoleRole; rolesAt: number; refreshToken?: string | null },
  ): Promise<boolean>;
}

export function consoleOidcRepository(db: Db): ConsoleOidcRepository {
  return {
    async findAccountIdOf(issuer, subject) {
      const row = await db
        .selectFrom('console_oidc_identities')
        .select('account_id')
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row?.account_id;
    },
    async linkIdentity(issuer, subject, accountId) {
      await db
        .insertInto('console_oidc_identities')
        .values({ issuer, subject, account_id: accountId })
        .execute();
    },
    async addFlow(flow, staleBefore) {
      await db.deleteFrom('console_oidc_flows').where('created_at', '<', staleBefore).execute();
      await db
        .insertInto('console_oidc_flows')
        .values({
          browser_hash: flow.browserHash,
          state: flow.state,
          nonce: flow.nonce,
          code_verifier: flow.codeVerifier,
          again: flow.again ? 1 : 0,
          created_at: flow.createdAt,
        })
        .execute();
    },
    async takeFlow(browserHash, staleBefore) {
      const row = await db
        .selectFrom('console_oidc_flows')
        .selectAll()
        .where('browser_hash', '=', browserHash)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      // Read, then delete: of two takers at once, one deletes the row and the other finds none.
      const deleted = await db
        .deleteFrom('console_oidc_flows')
        .where('browser_hash', '=', browserHash)
        .executeTakeFirst();
      if (deleted.numDeletedRows === 0n || Number(row.created_at) < staleBefore) return undefined;
      return {
        browserHash: row.browser_hash,
        state: row.state,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        again: Number(row.again) === 1,
        createdAt: Number(row.created_at),
      };
    },
    async addSession(session) {
      await db
        .insertInto('console_oidc_sessions')
        .values({
          id_hash: session.idHash,
          refresh_token: session.refreshToken,
          role: session.role,
          roles_at: session.rolesAt,
        })
        .execute();
    },
    async findSession(idHash) {
      const row = await db
        .selectFrom('console_oidc_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return (
        row && {
          idHash: row.id_hash,
          refreshToken: row.refresh_token,
          role: row.role as ConsoleRole,
          rolesAt: Number(row.roles_at),
        }
      );
    },
    async saveRefresh(idHash, readRolesAt, refreshed) {
      const result = await db
        .updateTable('console_oidc_sessions')
        .set({
          role: refreshed.role,
          roles_at: refreshed.rolesAt,
          ...(refreshed.refreshToken !== undefined && { refresh_token: refreshed.refreshToken }),
        })
        .where('id_hash', '=', idHash)
        .where('roles_at', '=', readRolesAt)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
