import { type Kysely } from 'kysely';
import { createVerifyCodeFunction } from './0019-verify-code-function.js';

/**
 * A verification's success keeps the user's row of verify_failures and sets it to zero instead of
 * deleting it: every attempt counts itself on that row first, so a success used to
 * insert or update it and then delete it, and the next failure inserted it again (a new row, a new
 * entry in its primary key, a dead row for the vacuum). Kept, each attempt updates the row in
 * place (a HOT update: no index entry). A row with no failures means none (verify-failures.ts).
 */
const FORGET_FAILURES =
  'update verify_failures set failures = 0, locked_at = null, locked_until = null where user_id = p_user_id;';

export async function up(db: Kysely<unknown>): Promise<void> {
  await createVerifyCodeFunction(db, FORGET_FAILURES);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createVerifyCodeFunction(db, 'delete from verify_failures where user_id = p_user_id;');
}
