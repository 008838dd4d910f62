import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * Where a run's releases are made: `disk` a folder on the checkout's filesystem, `memory` one in
 * memory (tmpfs, /dev/shm), where the release's ten thousand small files cost a third of the system
 * time; the same folder as `disk` where the machine has no /dev/shm to write to.
 */
export interface ReleaseFolders {
  disk: string;
  memory: string;
}

/** Makes the run's two release folders (testing/global-setup.ts removes them at the end). */
export function makeReleaseFolders(): ReleaseFolders {
  const disk = mkdtempSync(join(tmpdir(), 'dea-releases-'));
  try {
    accessSync('/dev/shm', constants.W_OK);
    return { disk, memory: mkdtempSync('/dev/shm/dea-releases-') };
  } catch {
    return { disk, memory: disk };
  }
}

/**
 * The options of the run's shared releases: everything as `npm run release` makes it but xz at its
 * fastest preset (-z1 instead of dpkg-deb's 6): the package holds the same files in the same order,
 * and two builds still give the same bytes, for about 4 CPU-seconds of compression instead of 29
 * (docs/benchmarks.md).
 */
export const TEST_RELEASE_ARGS: readonly string[] = ['--compression-level', '1'];

/** Where a release is made: in memory unless a test needs it on the disk's filesystem. */
export type ReleasePlace = keyof ReleaseFolders;

/** A release the run makes once, whichever files ask for it: its name (its folder), options, place. */
interface SharedReleaseInput {
  name: string;
  args: string[];
  place: ReleasePlace;
}

/** Made in the run's main process (testing/global-setup.ts): `scripts/release.mjs` into a folder/name. */
export async function buildSharedRelease(folders: ReleaseFolders, input: unknown): Promise<Release> {
  const { name, args, place } = input as SharedReleaseInput;
  if (!/^[a-z0-9-]+$/.test(name) || args.includes('--out') || !Object.hasOwn(folders, place))
    throw new Error(
      `a shared release is named [a-z0-9-]+, made on disk or in memory, and has no --out of its own: ${name} ${place} ${args.join(' ')}`,
    );
  return runRelease([...args, '--out', join(folders[place], name)]);
}

/**
 * `scripts/release.mjs --no-build <args>`, made once per run under `name` whichever files ask for it
 * (both release test files install and check the same artifacts); another name is another build, as
 * the check of reproducible builds needs. Asked for under one name with other options, it fails.
 * Made in memory unless `place` is 'disk'.
 */
export async function sharedRelease(
  name: string,
  args: readonly string[] = [],
  place: ReleasePlace = 'memory',
): Promise<Release> {
  return sharedService<Release>('release', { name, args, place }, name);
}
