import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedService } from './shared-services.js';

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

/** A release the run makes once, whichever files ask for it: its name (its folder) and its options. */
interface SharedReleaseInput {
  name: string;
  args: string[];
}

/** Made in the run's main process (testing/global-setup.ts): `scripts/release.mjs` into `folder`/name. */
export async function buildSharedRelease(folder: string, input: unknown): Promise<Release> {
  const { name, args } = input as SharedReleaseInput;
  if (!/^[a-z0-9-]+$/.test(name) || args.includes('--out'))
    throw new Error(
      `a shared release is named [a-z0-9-]+ and has no --out of its own: ${name} ${args.join(' ')}`,
    );
  return runRelease([...args, '--out', join(folder, name)]);
}

/**
 * `scripts/release.mjs --no-build <args>`, made once per run under `name` whichever files ask for it
 * (both release test files install and check the same artifacts); another name is another build, as
 * the check of reproducible builds needs. Asked for under one name with other options, it fails.
 */
export async function sharedRelease(name: string, args: string[] = []): Promise<Release> {
  return sharedService<Release>('release', { name, args }, name);
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
