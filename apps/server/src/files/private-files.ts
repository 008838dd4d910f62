import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

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
