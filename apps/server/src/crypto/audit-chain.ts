import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the chain value of an audit entry covers: its place in the trail and all it stores. */
export interface ChainedEntry extends StampedEntry {
  seq: number;
  /**
   * The writer's stamp as sealed ('legacy': an older version's entry), which the chain value then
   * covers: a stamp taken off a sealed entry breaks its chain, so "no stamped entry was sealed yet"
   * cannot be made true again. None for an entry sealed before stamps (its chain value is as it was).
   */
  stamp?: string | null;
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
      ...(entry.stamp === undefined || entry.stamp === null ? [] : [entry.stamp]),
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

/** What an entry's stamp covers: all it stores, as it is written (before any place in the trail). */
export interface StampedEntry {
  id: string;
  at: number;
  event: string;
  userId: string | null;
  actor: string | null;
  clientAddress: string | null;
  /** The details exactly as stored (JSON text). */
  details: string;
}

/**
 * The events a code's verification on PostgreSQL writes inside the database (`dea_verify_code`):
 * which of them, and its details, the function decides from what the database holds, so their
 * stamp covers the rest of the entry (`verificationStampOf`).
 */
export const VERIFICATION_EVENTS: ReadonlySet<string> = new Set([
  'code.used',
  'code.verify_failed',
  'code.verify_locked',
  'code.verify_lockout',
]);

/** An entry's stamp: `<fingerprint of the secret>.<HMAC-SHA256 over the entry>`. */
export function entryStampOf(key: Buffer, fingerprint: string, entry: StampedEntry): string {
  return `${fingerprint}.${mac(
    key,
    JSON.stringify([
      'dea-audit-entry/v1',
      entry.id,
      entry.at,
      entry.event,
      entry.userId,
      entry.actor,
      entry.clientAddress,
      entry.details,
    ]),
  )}`;
}

/** The stamp of an entry of a code's verification on PostgreSQL: all but its event and details. */
export function verificationStampOf(
  key: Buffer,
  fingerprint: string,
  entry: Omit<StampedEntry, 'event' | 'details'>,
): string {
  return `${fingerprint}.${mac(
    key,
    JSON.stringify([
      'dea-audit-verification/v1',
      entry.id,
      entry.at,
      entry.userId,
      entry.actor,
      entry.clientAddress,
    ]),
  )}`;
}

/** The fingerprint a stamp names, or undefined when it is not a stamp at all. */
export function stampFingerprintOf(stamp: string | null): string | undefined {
  if (stamp === null) return undefined;
  const dot = stamp.indexOf('.');
  return dot > 0 && dot < stamp.length - 1 ? stamp.slice(0, dot) : undefined;
}

/** Whether `stamp` is the one `key` (of the secret `fingerprint`) gives the entry, compared in constant time. */
export function stampIsValid(key: Buffer, fingerprint: string, entry: StampedEntry, stamp: string): boolean {
  if (sameMac(entryStampOf(key, fingerprint, entry), stamp)) return true;
  return VERIFICATION_EVENTS.has(entry.event) && sameMac(verificationStampOf(key, fingerprint, entry), stamp);
}

/**
 * Where a seal found the end of the trail cut (its head missing or changed, or the trail emptied):
 * the next entry is chained onto this value instead of its predecessor's, so the cut stays in the
 * chain for good (ADR 0032).
 */
export function cutLinkOf(key: Buffer, previous: string, previousSeq: number): string {
  return mac(key, JSON.stringify(['dea-audit-cut/v1', previous, previousSeq]));
}
