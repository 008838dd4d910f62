import type { Db } from './db.js';

/** What a key holds when a request asks for it (domain/codes/retried-requests.ts). */
export type KeyClaim<A> =
  /** Nobody held the key (or its time ran out): it is this request's now. */
  | { state: 'claimed' }
  /** Another request with the same key and fingerprint is still being worked on. */
  | { state: 'in-flight' }
  /** The answer given to the first request with this key and fingerprint. */
  | { state: 'answered'; answer: A }
  /** The key was used with another request (another fingerprint). */
  | { state: 'other-request' };

/**
 * Remembered answers by key, each until its time runs out: `claim` takes a key for one request
 * atomically (of any number of simultaneous requests with one key, on any number of instances,
 * exactly one is `claimed`), `settle` keeps its answer, `release` forgets a key whose work failed,
 * `withdraw` forgets an answer no retry has been given. Strings in, strings out.
 */
export interface VerifyAnswerRepository {
  claim(key: string, fingerprint: string, now: number, until: number): Promise<KeyClaim<string>>;
  settle(key: string, fingerprint: string, answer: string, until: number): Promise<void>;
  release(key: string, fingerprint: string): Promise<void>;
  withdraw(key: string, fingerprint: string): Promise<boolean>;
}

export function verifyAnswerRepository(db: Db): VerifyAnswerRepository {
  return {
    async claim(key, fingerprint, now, until) {
      // A loop only because a row may go (released, purged) between the two statements.
      for (;;) {
        // One upsert takes a free key or one whose time ran out; a held key is left as it is.
        const taken = await db
          .insertInto('verify_answers')
          .values({ key_hash: key, fingerprint, answer: null, repeated: 0, expires_at: until })
          .onConflict((oc) =>
            oc
              .column('key_hash')
              .doUpdateSet({ fingerprint, answer: null, repeated: 0, expires_at: until })
              .where('verify_answers.expires_at', '<=', now),
          )
          .executeTakeFirst();
        if (Number(taken.numInsertedOrUpdatedRows ?? 0n) > 0) return { state: 'claimed' };
        // Held: an answer for the same request is handed out, and marked as given to a retry.
        const given = await db
          .updateTable('verify_answers')
          .set({ repeated: 1 })
          .where('key_hash', '=', key)
          .where('fingerprint', '=', fingerprint)
          .where('answer', 'is not', null)
          .where('expires_at', '>', now)
          .returning('answer')
          .executeTakeFirst();
        if (given?.answer !== undefined && given.answer !== null)
          return { state: 'answered', answer: given.answer };
        const held = await db
          .selectFrom('verify_answers')
          .select(['fingerprint', 'answer'])
          .where('key_hash', '=', key)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        if (held === undefined) continue;
        if (held.fingerprint !== fingerprint) return { state: 'other-request' };
        if (held.answer === null) return { state: 'in-flight' };
      }
    },
    async settle(key, fingerprint, answer, until) {
      await db
        .updateTable('verify_answers')
        .set({ answer, expires_at: until })
        .where('key_hash', '=', key)
        .where('fingerprint', '=', fingerprint)
        .where('answer', 'is', null)
        .execute();
    },
    async release(key, fingerprint) {
      await db
        .deleteFrom('verify_answers')
        .where('key_hash', '=', key)
        .where('fingerprint', '=', fingerprint)
        .where('answer', 'is', null)
        .execute();
    },
    async withdraw(key, fingerprint) {
      const result = await db
        .deleteFrom('verify_answers')
        .where('key_hash', '=', key)
        .where('fingerprint', '=', fingerprint)
        .where('repeated', '=', 0)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
