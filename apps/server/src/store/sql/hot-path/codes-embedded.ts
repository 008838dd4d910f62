import { sql, type Selectable } from 'kysely';
import type { CodesTable } from '../../database.js';
import { type AuditStampKey, auditInserter } from '../audit.js';
import { channelsOfRows } from '../channels.js';
import { type IssueCall, STILL_USABLE } from '../codes.js';
import { compiledOnce } from '../compiled-once.js';
import type { Db } from '../db.js';
import { codeVerification } from './code-verification.js';
import type { HotPath } from './hot-path.js';
import { channelsOfUserStatement } from './reads-embedded.js';
import { sharingTransactions } from './shared-transactions.js';

/**
 * A code's issue and verification on the embedded store: transactions of statements compiled
 * once, the calls of one turn of the event loop sharing one transaction and its commit.
 */
export function embeddedCodeUse(
  db: Db,
  stampKey: AuditStampKey | undefined,
): Pick<HotPath, 'issueCode' | 'verifyCode'> {
  const insertAudit = auditInserter(db, stampKey);
  const channelsOfUser = channelsOfUserStatement(db);
  // Issuing a code is a hot path. On the embedded store it is a transaction of statements compiled
  // once; SQLite needs no row lock: its single connection runs one transaction at a time. The issues
  // of one turn of the event loop share a transaction and its commit (sharingTransactions).
  const userExists = compiledOnce(db, (values: { userId: string }) =>
    db.selectFrom('users').select('id').where('id', '=', values.userId),
  );
  // The limit is checked by the insert itself.
  const insertUnderLimit = compiledOnce(db, (values: Selectable<CodesTable> & { max_unused: number }) =>
    db
      .insertInto('codes')
      .columns([
        'id',
        'user_id',
        'code_hash',
        'created_at',
        'expires_at',
        'uses_left',
        'last_used_at',
        'invalidated_at',
        'channel_type',
      ])
      .expression(
        db
          .selectNoFrom((eb) => [
            eb.val(values.id).as('id'),
            eb.val(values.user_id).as('user_id'),
            eb.val(values.code_hash).as('code_hash'),
            eb.val(values.created_at).as('created_at'),
            eb.val(values.expires_at).as('expires_at'),
            eb.val(values.uses_left).as('uses_left'),
            eb.lit(null).as('last_used_at'),
            eb.lit(null).as('invalidated_at'),
            eb.val(values.channel_type).as('channel_type'),
          ])
          .where(
            (eb) =>
              eb
                .selectFrom('codes')
                .select(eb.fn.countAll<number>().as('n'))
                .where('user_id', '=', values.user_id)
                .where('expires_at', '>', values.created_at)
                .where('uses_left', '>', STILL_USABLE)
                .where('invalidated_at', 'is', null),
            '<',
            values.max_unused,
          )
          // The user's existence too: no statement of its own before (the foreign key alone would
          // fail the transaction the issues of one turn share).
          .where((eb) =>
            eb.exists(eb.selectFrom('users').select(sql.lit(1).as('one')).where('id', '=', values.user_id)),
          ),
      ),
  );
  const issueInSharedTransaction = sharingTransactions(
    db,
    async (trx, { code, maxUnused, audit }: IssueCall) => {
      const inserted = await insertUnderLimit.run(trx, {
        id: code.id,
        user_id: code.userId,
        code_hash: code.codeHash,
        created_at: code.createdAt,
        expires_at: code.expiresAt,
        uses_left: code.uses,
        last_used_at: null,
        invalidated_at: null,
        channel_type: code.channelType,
        max_unused: maxUnused,
      });
      if (Number(inserted.numAffectedRows ?? 0n) === 0) {
        // Refused: which condition, asked only now (a refusal is rare).
        const exists = (await userExists.run(trx, { userId: code.userId })).rows.length > 0;
        return { issued: false, reason: exists ? 'store-full' : 'no-user' } as const;
      }
      await insertAudit(trx, audit, code.createdAt);
      const channels = channelsOfRows((await channelsOfUser.run(trx, { userId: code.userId })).rows);
      return { issued: true, channels } as const;
    },
  );
  const verifyIn = codeVerification(db, stampKey);
  return {
    issueCode: issueInSharedTransaction,
    verifyCode: sharingTransactions(db, (trx, call) => verifyIn(trx, call, false)),
  };
}
