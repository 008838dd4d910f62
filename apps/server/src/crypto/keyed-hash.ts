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
