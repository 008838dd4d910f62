import { randomBytes, hkdfSync } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateFolder, readPrivateFileSync } from '../files/private-files.js';

/**
 * The keys of the server, derived from one secret that is never in the store: a dump of the
 * store alone neither reveals a code nor forges a cookie.
 */
export interface DerivedKeys {
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
  /** HMAC key of the tokens of console enrolment links (dea admin add, reset-passkeys). */
  consoleEnrolment: Buffer;
  /** HMAC key of the audit trail's chain values and checkpoints (ADR 0018). */
  auditChain: Buffer;
  /**
   * HMAC key of the stamp each audit entry gets as it is written (ADR 0032): a seal chains only
   * what the product wrote, never a row put in the database by someone without the secret.
   */
  auditEntry: Buffer;
  /**
   * Names the secret without revealing it: kept in the store, so an instance started with another
   * secret is stopped instead of rejecting the others' sessions, keys and codes.
   */
  fingerprint: string;
}

export interface SecretKeys extends DerivedKeys {
  /**
   * The keys of DEA_SECRET_PREVIOUS while a secret is being replaced: what was made with them
   * (codes, cross-site tokens of sessions, service keys, sealed outbox messages) is still
   * accepted; nothing new is made with them.
   */
  previous: DerivedKeys | undefined;
}

/** The kinds of keys whose old material stays valid during a rotation. */
export type AcceptedKind = 'codeHash' | 'xsrf' | 'seal' | 'serviceKey' | 'consoleEnrolment';

/** The keys of a kind that are accepted: the current one first, then the previous secret's. */
export function acceptedKeys(keys: SecretKeys, kind: AcceptedKind): Buffer[] {
  return keys.previous === undefined ? [keys[kind]] : [keys[kind], keys.previous[kind]];
}

export const SECRET_KEY_FILE = 'secret.key';
const MIN_SECRET_BYTES = 32;

/** The bytes of a secret written in base64 or hex; undefined when it holds fewer than 32. */
export function secretBytesOf(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const bytes =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
  return bytes.length < MIN_SECRET_BYTES ? undefined : bytes;
}

function decodeSecret(text: string): Buffer {
  const bytes = secretBytesOf(text);
  if (bytes === undefined) {
    throw new Error(`the server secret must hold at least ${MIN_SECRET_BYTES} bytes (base64 or hex)`);
  }
  return bytes;
}

/** The configured secret, or the one in the data folder, generated on first start. */
export function loadSecret(configured: string, dataDir: string): { secret: Buffer; generated: boolean } {
  if (configured !== '') return { secret: decodeSecret(configured), generated: false };
  const file = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(file))
    return {
      secret: decodeSecret(readPrivateFileSync(file, 'the server secret ').toString('utf8')),
      generated: false,
    };
  ensurePrivateFolder(dataDir);
  const secret = randomBytes(MIN_SECRET_BYTES);
  writeFileSync(file, `${secret.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { secret, generated: true };
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `dea/${purpose}/v1`, 32));
}

/** The keys of the secret, and those of the previous one while it is replaced. */
export function deriveKeys(secret: Buffer, previous?: Buffer): SecretKeys {
  return { ...derivedKeys(secret), previous: previous === undefined ? undefined : derivedKeys(previous) };
}

function derivedKeys(secret: Buffer): DerivedKeys {
  return {
    codeHash: derive(secret, 'code-hash'),
    xsrf: derive(secret, 'xsrf'),
    seal: derive(secret, 'seal'),
    serviceKey: derive(secret, 'service-key'),
    identifier: derive(secret, 'identifier'),
    consoleEnrolment: derive(secret, 'console-enrolment'),
    auditChain: derive(secret, 'audit-chain'),
    auditEntry: derive(secret, 'audit-entry'),
    fingerprint: derive(secret, 'fingerprint').subarray(0, 12).toString('base64url'),
  };
}
