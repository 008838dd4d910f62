import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where `npm run release` runs. */
export const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));

/** The artifacts of one `scripts/release.mjs` run (file names in `out`), from its SHA256SUMS. */
export interface Release {
  out: string;
  deb: string;
  tar: string;
  sums: string;
}

/**
 * Runs `node scripts/release.mjs --no-build <args>` (--out among them) and names what it made.
 * Asynchronous, so that a test can make two releases side by side.
 */
export async function runRelease(args: string[]): Promise<Release> {
  const child = spawn(process.execPath, ['scripts/release.mjs', '--no-build', ...args], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`scripts/release.mjs ${args.join(' ')} exited ${code}:\n${stderr}`);
  const out = args[args.indexOf('--out') + 1] ?? '';
  const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
  const name = (pattern: RegExp) => pattern.exec(sums)?.[1] ?? '';
  return { out, deb: name(/ {2}(\S+\.deb)$/m), tar: name(/ {2}(\S+\.tar\.gz)$/m), sums };
}

/** The settings a systemd EnvironmentFile sets: NAME=value lines, comments left out, quotes taken off. */
export function envFileSettings(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1] === undefined) continue;
    const value = match[2] ?? '';
    settings[match[1]] = /^'.*'$|^".*"$/.test(value) ? value.slice(1, -1) : value;
  }
  return settings;
}
