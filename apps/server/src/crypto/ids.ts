import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

/**
 * Random bytes for ids and channel references drawn 256 at a time: one system call instead of one
 * each (a sync's first pass makes 100,000 channel references: 1.4 s of randomBytes calls). Each
 * slice is handed out once.
 */
const ID_BYTES = 16;
const pool = Buffer.alloc(256 * ID_BYTES);
let poolOffset = pool.length;

function randomIdBytes(): Buffer {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += ID_BYTES;
  return pool.subarray(poolOffset - ID_BYTES, poolOffset);
}

let lastMs = 0;
let sequence = 0;
const SEQUENCE_MAX = 0xfff;

/**
 * A UUIDv7 (RFC 9562): time-ordered with 62 random bits. Within one millisecond of one process a
 * 12-bit counter (RFC 9562, method 1) keeps ids in creation order, so rows written in the same
 * millisecond (audit entries) still sort as they happened.
 */
export function newId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = randomInt((SEQUENCE_MAX + 1) / 2);
  } else if (sequence < SEQUENCE_MAX) {
    sequence += 1;
  } else {
    lastMs += 1;
    sequence = 0;
  }
  const bytes = Buffer.from(randomIdBytes());
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An unguessable token of `bytes` random bytes, base64url. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The opaque reference of a channel, the only handle the browser gets on an address: random,
 * carrying no time or order (unlike a UUIDv7), 128 bits.
 */
export function newChannelReference(): string {
  return randomIdBytes().toString('base64url');
}
