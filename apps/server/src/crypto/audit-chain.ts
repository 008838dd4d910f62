import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the chain value of an audit entry covers: its place in the trail and all it stores. */
export interface ChainedEntry {
  seq: number;
  id: string;
  at: number;
  event: string;
  userId: string | null;
  actor: string | null;
  clientAddress: string | null;
  /** The details exactly as stored (JSON text). */
  details: string;
}

/** A signed row of the chain: its head, or a checkpoint left by the purge or a secret rotation. */
export interface ChainMark {
  name: string;
  seq: number;
  chain: string;
  reason: string;
  at: number;
}

const mac = (key: Buffer, text: string): string => createHmac('sha256', key).update(text).digest('base64url');

/** The chain value of an entry: HMAC-SHA256 over the previous entry's chain value and its own content. */
export function chainValueOf(key: Buffer, previous: string, entry: ChainedEntry): string {
  return mac(
    key,
    JSON.stringify([
      'dea-audit/v1',
      previous,
      entry.seq,
      entry.id,
      entry.at,
      entry.event,
      entry.userId,
      entry.actor,
      entry.clientAddress,
      entry.details,
    ]),
  );
}

/** The signature of a head or checkpoint row. */
export function chainMarkMacOf(key: Buffer, mark: ChainMark): string {
  return mac(
    key,
    JSON.stringify(['dea-audit-mark/v1', mark.name, mark.seq, mark.chain, mark.reason, mark.at]),
  );
}

/** Compares two MACs in constant time. */
export function sameMac(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
