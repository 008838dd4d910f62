import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The data folder holds the store and the server secret: only the server's own user may read it.
 * Created 0700 (its files 0600); an existing folder keeps the mode its operator gave it.
 */
export function ensurePrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

/** Creates an empty file readable by its owner only, unless it exists. */
export function ensurePrivateFile(path: string): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', 0o600));
}

/** A file holding a secret that others than its owner may read or change. */
export class OpenPrivateFileError extends Error {
  constructor(
    readonly path: string,
    readonly mode: number,
    what: string,
  ) {
    super(
      `${what}${path} may be read by others than its owner (mode ${mode.toString(8).padStart(4, '0')}): refused, as ssh refuses such a key; run chmod 600 ${path}`,
    );
  }
}

/**
 * Whether a file lets others than its owner in, as ssh checks its keys: its group or anyone else
 * may read or change it. One exception, as PostgreSQL makes it for its key files: a file of root's
 * that its group may only read (at most 0640), read by a process that is not root and so reads it
 * through that group, the service's: the Debian package keeps the server secret `root:dea 0440`,
 * so the service reads it and cannot change it.
 */
export function isOpenFile({ mode, uid }: { mode: number; uid: number }): boolean {
  if (process.platform === 'win32') return false;
  if (uid === 0 && process.getuid?.() !== 0) return (mode & 0o037) !== 0;
  return (mode & 0o077) !== 0;
}

/**
 * The content of a file that holds a secret (password, key), read only when its group and others
 * have no access to it (isOpenFile); the mode is checked on the file opened, not on its name. Throws
 * OpenPrivateFileError naming the file and the mode to set, or the reading's own error (ENOENT).
 * `what` starts the message ("the password file ").
 */
export function readPrivateFileSync(path: string, what = ''): Buffer {
  const descriptor = openSync(path, 'r');
  try {
    const stat = fstatSync(descriptor);
    if (isOpenFile(stat)) throw new OpenPrivateFileError(path, stat.mode & 0o7777, what);
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** readPrivateFileSync, without blocking the event loop on the read. */
export async function readPrivateFile(path: string, what = ''): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const stat = await handle.stat();
    if (isOpenFile(stat)) throw new OpenPrivateFileError(path, stat.mode & 0o7777, what);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
