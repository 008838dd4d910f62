import { checkSecretFingerprint } from '../store/secret-fingerprint.js';
import type { AuditChainMark, Store } from '../store/store.js';
import { execRaw } from './store-dump.js';
import { TEST_STORE_KEYS, type TestStore } from './stores.js';
import { beginAuditTrail, sealAuditTrail } from '../domain/audit/audit-trail.js';

/**
 * The end of the audit trail and the entries the product did not write (ADR 0032): what someone
 * who can write the database, but holds no secret, does to the trail is told by `verifyAuditTrail`,
 * and the next seal neither hides it nor chains what he wrote.
 */
export const NOW = Date.UTC(2026, 11, 1, 9, 0, 0);
export const DAY = 86_400_000;
// What a test store writes is stamped under these keys' secret.
export const KEYS = TEST_STORE_KEYS;

export async function appendSome(store: Store, count: number, at = NOW): Promise<void> {
  for (let index = 0; index < count; index += 1)
    await store.audit.append({ event: 'user.created', actor: 'cli', details: { index } }, at + index);
}

/** A store a server has run on: its trail begun, its secret recorded, entries sealed. */
export async function usedStore(store: Store, count: number): Promise<void> {
  await beginAuditTrail(store, KEYS, NOW);
  await checkSecretFingerprint(store, KEYS, true, NOW);
  await appendSome(store, count);
  await sealAuditTrail(store, KEYS, NOW);
}

export async function seqs(store: Store): Promise<number[]> {
  return (await store.auditTrail.sealedAfter(0, 10_000)).map(({ seq }) => seq);
}

export async function headOf(store: Store): Promise<AuditChainMark | undefined> {
  return (await store.auditTrail.marks()).find((mark) => mark.name === 'head');
}

export async function putHeadBack(testStore: TestStore, head: AuditChainMark): Promise<void> {
  await execRaw(testStore, `delete from audit_chain where name = 'head'`);
  await execRaw(
    testStore,
    `insert into audit_chain (name, seq, chain, reason, at, chain_key, mac) values ($1, $2, $3, $4, $5, $6, $7)`,
    [head.name, head.seq, head.chain, head.reason, head.at, head.chainKey, head.mac],
  );
}

/** An entry put into the audit log with the database's own tools, an old date, and `stamp`. */
export async function forge(testStore: TestStore, id: string, stamp: string | null): Promise<void> {
  await execRaw(
    testStore,
    `insert into audit_log (id, at, event, user_id, actor, client_address, details, stamp) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, NOW - 30 * DAY, 'policy.set', null, 'console:admin', '192.0.2.66', '{"enableECode":true}', stamp],
  );
}
