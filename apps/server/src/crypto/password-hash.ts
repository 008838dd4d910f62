import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with scrypt (memory-hard; built into Node, no native add-on). The
 * stored form carries its parameters, so the cost can be raised without breaking old hashes:
 * `scrypt$ln=17,r=8,p=1$<salt>$<hash>`.
 */
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

/** Runs scrypt: on libuv's thread pool by default, on threads of their own in the server. */
export type ScryptDerive = (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
) => Promise<Buffer>;

/** Node's own asynchronous scrypt, on libuv's thread pool: the CLI and tests. */
export const deriveOnThreadPool: ScryptDerive = (password, salt, keyLength, options) =>
  new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

function optionsFor(logN: number, r: number, p: number): ScryptOptions {
  const N = 2 ** logN;
  return { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
}

export async function hashPassword(
  password: string,
  logN: number,
  derive: ScryptDerive = deriveOnThreadPool,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(
    password.normalize('NFKC'),
    salt,
    KEY_LENGTH,
    optionsFor(logN, BLOCK_SIZE, PARALLELISM),
  );
  return `scrypt$ln=${logN},r=${BLOCK_SIZE},p=${PARALLELISM}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const STORED = /^scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([\w-]+)\$([\w-]+)$/;

/** The cost (log2 of N) a stored hash was made with; undefined when it is not one of ours. */
export function costOf(stored: string): number | undefined {
  const match = STORED.exec(stored);
  return match ? Number(match[1]) : undefined;
}

/** Whether a stored hash should be made again at the configured cost (after a right password). */
export function needsRehash(stored: string, logN: number): boolean {
  const match = STORED.exec(stored);
  return (
    match === null ||
    Number(match[1]) !== logN ||
    Number(match[2]) !== BLOCK_SIZE ||
    Number(match[3]) !== PARALLELISM
  );
}

export async function verifyPassword(
  password: string,
  stored: string,
  derive: ScryptDerive = deriveOnThreadPool,
): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [, logN, r, p, salt, hash] = match;
  const expected = Buffer.from(hash ?? '', 'base64url');
  const actual = await derive(
    password.normalize('NFKC'),
    Buffer.from(salt ?? '', 'base64url'),
    KEY_LENGTH,
    optionsFor(Number(logN), Number(r), Number(p)),
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
