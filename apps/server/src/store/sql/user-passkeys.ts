import type { Db } from './db.js';

/** A person's own passkey (migration 0031). */
export interface UserPasskey {
  credentialId: string;
  userId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Which ceremony a challenge is for: adding a passkey, or signing in with one. */
export type PasskeyCeremony = 'registration' | 'authentication';

export interface UserPasskeyRepository {
  /** Keeps a new passkey: false when that credential id is kept already (anyone's). */
  add(passkey: UserPasskey): Promise<boolean>;
  listOfUser(userId: string): Promise<UserPasskey[]>;
  /** The passkey of that credential id when it is this person's; undefined for anyone else's. */
  findOfUser(userId: string, credentialId: string): Promise<UserPasskey | undefined>;
  /**
   * Records a use when the authenticator's counter moved on (or both are 0, for authenticators
   * without one): false for a counter that did not, a sign of a cloned key.
   */
  use(userId: string, credentialId: string, counter: number, at: number): Promise<boolean>;
  /** Answers whether the person has that passkey. */
  rename(userId: string, credentialId: string, name: string): Promise<boolean>;
  /** Answers whether the person had that passkey. */
  remove(userId: string, credentialId: string): Promise<boolean>;
  /** Removes every passkey of the person; answers how many there were. */
  removeAllOf(userId: string): Promise<number>;
  /** Keeps the challenge of a ceremony, replacing the person's earlier one of that ceremony. */
  setChallenge(
    userId: string,
    ceremony: PasskeyCeremony,
    challenge: string,
    expiresAt: number,
  ): Promise<void>;
  /**
   * Takes the person's unexpired challenge of that ceremony and value in one statement: true for
   * the one caller that took it, false for every other (a second answer at the same moment too).
   */
  takeChallenge(userId: string, ceremony: PasskeyCeremony, challenge: string, now: number): Promise<boolean>;
}

interface Row {
  credential_id: string;
  user_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

const toPasskey = (row: Row): UserPasskey => ({
  credentialId: row.credential_id,
  userId: row.user_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: JSON.parse(row.transports) as string[],
  name: row.name,
  createdAt: Number(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
});

export function userPasskeyRepository(db: Db): UserPasskeyRepository {
  return {
    async add(passkey) {
      const result = await db
        .insertInto('user_passkeys')
        .values({
          credential_id: passkey.credentialId,
          user_id: passkey.userId,
          public_key: passkey.publicKey,
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          name: passkey.name,
          created_at: passkey.createdAt,
          last_used_at: passkey.lastUsedAt,
        })
        .onConflict((conflict) => conflict.column('credential_id').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    async listOfUser(userId) {
      const rows = await db
        .selectFrom('user_passkeys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('credential_id')
        .execute();
      return rows.map(toPasskey);
    },
    async findOfUser(userId, credentialId) {
      const row = await db
        .selectFrom('user_passkeys')
        .selectAll()
        .where('credential_id', '=', credentialId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row === undefined ? undefined : toPasskey(row);
    },
    async use(userId, credentialId, counter, at) {
      const result = await db
        .updateTable('user_passkeys')
        .set({ counter, last_used_at: at })
        .where('credential_id', '=', credentialId)
        .where('user_id', '=', userId)
        // An authenticator without a counter always reports 0; one with a counter must move it on.
        .where('counter', counter === 0 ? '=' : '<', counter)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async rename(userId, credentialId, name) {
      const result = await db
        .updateTable('user_passkeys')
        .set({ name })
        .where('credential_id', '=', credentialId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async remove(userId, credentialId) {
      const result = await db
        .deleteFrom('user_passkeys')
        .where('credential_id', '=', credentialId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async removeAllOf(userId) {
      const result = await db.deleteFrom('user_passkeys').where('user_id', '=', userId).executeTakeFirst();
      await db.deleteFrom('user_passkey_challenges').where('user_id', '=', userId).execute();
      return Number(result.numDeletedRows);
    },
    async setChallenge(userId, ceremony, challenge, expiresAt) {
      await db
        .insertInto('user_passkey_challenges')
        .values({ user_id: userId, ceremony, challenge, expires_at: expiresAt })
        .onConflict((conflict) =>
          conflict.columns(['user_id', 'ceremony']).doUpdateSet({ challenge, expires_at: expiresAt }),
        )
        .execute();
    },
    async takeChallenge(userId, ceremony, challenge, now) {
      const result = await db
        .deleteFrom('user_passkey_challenges')
        .where('user_id', '=', userId)
        .where('ceremony', '=', ceremony)
        .where('challenge', '=', challenge)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
