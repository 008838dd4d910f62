import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA-256 of the parts, joined so that ('ab','c') and ('a','bc') differ. */
export function keyedHash(key: Buffer, ...parts: string[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(`${Buffer.byteLength(part)}:${part};`);
  return hmac.digest('base64url');
}

export function sha256(text: string): string {
  // The one-shot form: a session lookup on every signed-in call hashes its id.
  return hash('sha256', text, 'base64url');
}

/**
 * A keyed hash (base64url, as keyedHash answers) as its 32 raw bytes, decoded once so that many
 * comparisons need no Buffer of their own (sameDigest).
 */
export function digestBytes(hashed: string): Buffer {
  return Buffer.from(hashed, 'base64url');
}

/**
 * Compares two raw digests in time that depends only on their lengths: what a verification
 * compares, (codes held, or decoys) × (the input's candidates), each decoded once before.
 */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/** Compares two secrets in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
