import { randomBytes } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): time-ordered, so rows sort by creation, with 74 random bits.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An unguessable token of `bytes` random bytes, base64url. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
