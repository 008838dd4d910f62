import { randomBytes, hkdfSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateFolder } from '../files/private-files.js';

/**
 * The keys of the server, derived from one secret that is never in the store: a dump of the
 * store alone neither reveals a code nor forges a cookie.
 */
export interface SecretKeys {
  /** HMAC key of code hashes. */
  codeHash: Buffer;
  /** HMAC key binding the cross-site request token to a session. */
  xsrf: Buffer;
  /** AES-256-GCM key sealing outbox messages. */
  seal: Buffer;
  /** HMAC key of service-key hashes. */
  serviceKey: Buffer;
  /**
   * HMAC key of what must be recognisable but never readable: user names typed at sign-in
   * (a password typed into the wrong field), kept for limits and in the audit log.
   */
  identifier: Buffer;
  /**
   * Names the secret without revealing it: kept in the store, so an instance started with another
   * secret is stopped instead of rejecting the others' sessions, keys and codes.
   */
  fingerprint: string;
}

export const SECRET_KEY_FILE = 'secret.key';
const MIN_SECRET_BYTES = 32;

function decodeSecret(text: string): Buffer {
  const trimmed = text.trim();
  const bytes =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new Error(`the server secret must hold at least ${MIN_SECRET_BYTES} bytes (base64 or hex)`);
  }
  return bytes;
}

/** The configured secret, or the one in the data folder, generated on first start. */
export function loadSecret(configured: string, dataDir: string): { secret: Buffer; generated: boolean } {
  if (configured !== '') return { secret: decodeSecret(configured), generated: false };
  const file = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(file)) return { secret: decodeSecret(readFileSync(file, 'utf8')), generated: false };
  ensurePrivateFolder(dataDir);
  const secret = randomBytes(MIN_SECRET_BYTES);
  writeFileSync(file, `${secret.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { secret, generated: true };
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `dea/${purpose}/v1`, 32));
}

export function deriveKeys(secret: Buffer): SecretKeys {
  return {
    codeHash: derive(secret, 'code-hash'),
    xsrf: derive(secret, 'xsrf'),
    seal: derive(secret, 'seal'),
    serviceKey: derive(secret, 'service-key'),
    identifier: derive(secret, 'identifier'),
    fingerprint: derive(secret, 'fingerprint').subarray(0, 12).toString('base64url'),
  };
}
