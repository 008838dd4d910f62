import { CONSOLE_ROLE_NAMES, type Username } from '@dea/contract';
import type { Selectable } from 'kysely';
import type { ConsoleAccountsTable, ConsolePasskeysTable, ConsoleSessionsTable } from '../database.js';
import { type Db, flag } from './db.js';

export const CONSOLE_ROLES = CONSOLE_ROLE_NAMES;

export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export interface ConsoleAccount {
  id: string;
  /** Canonical (RFC 8265), like a user's. */
  username: Username;
  displayName: string;
  role: ConsoleRole;
  passwordHash: string;
  disabled: boolean;
  createdAt: number;
  /**
   * The groups whose members alone a help-desk or auditor account sees and acts on (their names);
   * null: not limited. Checked by domain/console/console-scope.ts.
   */
  scope: readonly string[] | null;
}

export interface ConsolePasskey {
  /** base64url */
  credentialId: string;
  accountId: string;
  /** base64url of the COSE public key */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: number;
  lastUsedAt: number | null;
}

export interface ConsoleSession {
  idHash: string;
  accountId: string;
  xsrfHash: string;
  challenge: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** When the passkey was last verified in this session; null: the password only. */
  passkeyAt: number | null;
  endedAt: number | null;
}

export interface ConsoleRepository {
  createAccount(
    account: Omit<ConsoleAccount, 'disabled' | 'scope'> & { scope?: readonly string[] | null },
  ): Promise<void>;
  findAccountById(id: string): Promise<ConsoleAccount | undefined>;
  findAccountByUsername(username: Username): Promise<ConsoleAccount | undefined>;
  listAccounts(): Promise<ConsoleAccount[]>;
  updateAccount(
    id: string,
    changes: Partial<Pick<ConsoleAccount, 'disabled' | 'passwordHash' | 'role' | 'scope'>>,
  ): Promise<boolean>;
  /** With its passkeys and sessions. */
  removeAccount(id: string): Promise<boolean>;
  addPasskey(passkey: ConsolePasskey): Promise<void>;
  listPasskeys(accountId: string): Promise<ConsolePasskey[]>;
  findPasskey(credentialId: string): Promise<ConsolePasskey | undefined>;
  /**
   * Records a use of the passkey when the authenticator's counter moved on (or both are 0, for
   * authenticators without one): false for a counter that did not, a sign of a cloned key.
   */
  usePasskey(credentialId: string, counter: number, at: number): Promise<boolean>;
  removePasskeys(accountId: string): Promise<number>;
  createSession(session: Omit<ConsoleSession, 'challenge' | 'passkeyAt' | 'endedAt'>): Promise<void>;
  findSession(idHash: string): Promise<ConsoleSession | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  setChallenge(idHash: string, challenge: string): Promise<void>;
  /** The challenge of the ceremony under way, taken once: a second taker gets undefined. */
  takeChallenge(idHash: string): Promise<string | undefined>;
  markPasskey(idHash: string, at: number): Promise<void>;
  endSession(idHash: string, at: number): Promise<void>;
  endSessionsOf(accountId: string, at: number): Promise<number>;
  /** Keeps a new enrolment link of the account; its earlier links that were not used are removed. */
  addEnrolmentLink(link: Omit<ConsoleEnrolmentLink, 'usedAt'>): Promise<void>;
  /** The link of one of these hashes (one per accepted key), used or not. */
  findEnrolmentLink(tokenHashes: readonly string[]): Promise<ConsoleEnrolmentLink | undefined>;
  /**
   * Uses the link once: true for the one caller that found it unused, unexpired at `at` and of
   * that account; false for every other (a second use, even at the same moment, included).
   */
  useEnrolmentLink(tokenHashes: readonly string[], accountId: string, at: number): Promise<boolean>;
}

export interface ConsoleEnrolmentLink {
  tokenHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

const toAccount = (row: Selectable<ConsoleAccountsTable>): ConsoleAccount => ({
  id: row.id,
  username: row.username,
  displayName: row.display_name,
  role: row.role as ConsoleRole,
  passwordHash: row.password_hash,
  disabled: Number(row.disabled) === 1,
  createdAt: Number(row.created_at),
  scope: row.scope === null ? null : (JSON.parse(row.scope) as string[]),
});

const scopeColumn = (scope: readonly string[] | null): string | null =>
  scope === null ? null : JSON.stringify(scope);

const toPasskey = (row: Selectable<ConsolePasskeysTable>): ConsolePasskey => ({
  credentialId: row.credential_id,
  accountId: row.account_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: JSON.parse(row.transports) as string[],
  createdAt: Number(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
});

const toSession = (row: Selectable<ConsoleSessionsTable>): ConsoleSession => ({
  idHash: row.id_hash,
  accountId: row.account_id,
  xsrfHash: row.xsrf_hash,
  challenge: row.challenge,
  createdAt: Number(row.created_at),
  lastSeenAt: Number(row.last_seen_at),
  passkeyAt: row.passkey_at === null ? null : Number(row.passkey_at),
  endedAt: row.ended_at === null ? null : Number(row.ended_at),
});

export function consoleRepository(db: Db): ConsoleRepository {
  return {
    async createAccount(account) {
      await db
        .insertInto('console_accounts')
        .values({
          id: account.id,
          username: account.username,
          display_name: account.displayName,
          role: account.role,
          password_hash: account.passwordHash,
          created_at: account.createdAt,
          scope: scopeColumn(account.scope ?? null),
        })
        .execute();
    },
    async findAccountById(id) {
      const row = await db.selectFrom('console_accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAccount(row);
    },
    async findAccountByUsername(username) {
      const row = await db
        .selectFrom('console_accounts')
        .selectAll()
        .where('username', '=', username)
        .executeTakeFirst();
      return row && toAccount(row);
    },
    async listAccounts() {
      return (await db.selectFrom('console_accounts').selectAll().orderBy('username').execute()).map(
        toAccount,
      );
    },
    async updateAccount(id, changes) {
      const values = {
        ...(changes.disabled !== undefined && { disabled: flag(changes.disabled) }),
        ...(changes.passwordHash !== undefined && { password_hash: changes.passwordHash }),
        ...(changes.role !== undefined && { role: changes.role }),
        ...(changes.scope !== undefined && { scope: scopeColumn(changes.scope) }),
      };
      if (Object.keys(values).length === 0) return (await this.findAccountById(id)) !== undefined;
      const result = await db
        .updateTable('console_accounts')
        .set(values)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async removeAccount(id) {
      const result = await db.deleteFrom('console_accounts').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async addPasskey(passkey) {
      await db
        .insertInto('console_passkeys')
        .values({
          credential_id: passkey.credentialId,
          account_id: passkey.accountId,
          public_key: passkey.publicKey,
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          created_at: passkey.createdAt,
          last_used_at: passkey.lastUsedAt,
        })
        .execute();
    },
    async listPasskeys(accountId) {
      return (
        await db
          .selectFrom('console_passkeys')
          .selectAll()
          .where('account_id', '=', accountId)
          .orderBy('created_at')
          .execute()
      ).map(toPasskey);
    },
    async findPasskey(credentialId) {
      const row = await db
        .selectFrom('console_passkeys')
        .selectAll()
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return row && toPasskey(row);
    },
    async usePasskey(credentialId, counter, at) {
      const result = await db
        .updateTable('console_passkeys')
        .set({ counter, last_used_at: at })
        .where('credential_id', '=', credentialId)
        // An authenticator without a counter always reports 0; one with a counter must move it on.
        .where('counter', counter === 0 ? '=' : '<', counter)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async removePasskeys(accountId) {
      const result = await db
        .deleteFrom('console_passkeys')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async createSession(session) {
      await db
        .insertInto('console_sessions')
        .values({
          id_hash: session.idHash,
          account_id: session.accountId,
          xsrf_hash: session.xsrfHash,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
        })
        .execute();
    },
    async findSession(idHash) {
      const row = await db
        .selectFrom('console_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return row && toSession(row);
    },
    async touchSession(idHash, at) {
      await db
        .updateTable('console_sessions')
        .set({ last_seen_at: at })
        .where('id_hash', '=', idHash)
        .execute();
    },
    async setChallenge(idHash, challenge) {
      await db.updateTable('console_sessions').set({ challenge }).where('id_hash', '=', idHash).execute();
    },
    async takeChallenge(idHash) {
      // RETURNING gives the row after the update: read, then clear only what was read, so that
      // of two takers at once one clears it and the other finds nothing to clear.
      const row = await db
        .selectFrom('console_sessions')
        .select('challenge')
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      const challenge = row?.challenge ?? null;
      if (challenge === null) return undefined;
      const result = await db
        .updateTable('console_sessions')
        .set({ challenge: null })
        .where('id_hash', '=', idHash)
        .where('challenge', '=', challenge)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n ? challenge : undefined;
    },
    async markPasskey(idHash, at) {
      await db
        .updateTable('console_sessions')
        .set({ passkey_at: at, last_seen_at: at })
        .where('id_hash', '=', idHash)
        .execute();
    },
    async endSession(idHash, at) {
      await db
        .updateTable('console_sessions')
        .set({ ended_at: at })
        .where('id_hash', '=', idHash)
        .where('ended_at', 'is', null)
        .execute();
    },
    async addEnrolmentLink(link) {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('console_enrolment_links')
          .where('account_id', '=', link.accountId)
          .where('used_at', 'is', null)
          .execute();
        await trx
          .insertInto('console_enrolment_links')
          .values({
            token_hash: link.tokenHash,
            account_id: link.accountId,
            created_at: link.createdAt,
            expires_at: link.expiresAt,
          })
          .execute();
      });
    },
    async findEnrolmentLink(tokenHashes) {
      if (tokenHashes.length === 0) return undefined;
      const row = await db
        .selectFrom('console_enrolment_links')
        .selectAll()
        .where('token_hash', 'in', tokenHashes)
        .executeTakeFirst();
      return (
        row && {
          tokenHash: row.token_hash,
          accountId: row.account_id,
          createdAt: Number(row.created_at),
          expiresAt: Number(row.expires_at),
          usedAt: row.used_at === null ? null : Number(row.used_at),
        }
      );
    },
    async useEnrolmentLink(tokenHashes, accountId, at) {
      if (tokenHashes.length === 0) return false;
      // One statement: of two uses at once, the second finds used_at set and changes nothing.
      const result = await db
        .updateTable('console_enrolment_links')
        .set({ used_at: at })
        .where('token_hash', 'in', tokenHashes)
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async endSessionsOf(accountId, at) {
      const result = await db
        .updateTable('console_sessions')
        .set({ ended_at: at })
        .where('account_id', '=', accountId)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
