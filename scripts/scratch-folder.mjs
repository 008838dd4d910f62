// The folder a test run's scratch files go to (the TMPDIR its processes inherit): every test's
// store, the run's PostgreSQL cluster, the directory's and the release's files. In memory (a
// folder of its own under /dev/shm) when the machine has that tmpfs to write to: on a disk's
// filesystem, each file a test makes and removes costs the kernel an inode's allocation, and a
// TRUNCATE or a copied database makes a file per table and index. On this machine's journal-less
// ext4 that allocation (`recently_deleted`) was 45% of PostgreSQL's CPU in the server suite;
// with the scratch folder in memory the suite took 81 fewer CPU-seconds (docs/benchmarks.md, "The
// test suite").
//
// DEA_TEST_TMPDIR names another folder instead (it must exist), for instance a disk's to keep the
// memory free; without /dev/shm, the run keeps the system's temporary folder (TMPDIR, or /tmp).
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, statSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** tmpfs's magic number in statfs(2). */
const TMPFS = 0x01021994;
/** Less room in memory than this and the run's files stay on the disk (a release is ~200 MB). */
const ROOM_NEEDED = 4 * 1024 ** 3;

/** The scratch folder of a run: `path` to pass as TMPDIR, `why` to print, `remove()` at its end. */
export function scratchFolder(environment = process.env) {
  const named = environment.DEA_TEST_TMPDIR;
  if (named !== undefined && named !== '') {
    try {
      if (!statSync(named).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
      accessSync(named, constants.W_OK);
    } catch (error) {
      throw new Error(`DEA_TEST_TMPDIR=${named}: not a folder this user can write to (${error.code})`);
    }
    return { path: named, why: 'DEA_TEST_TMPDIR', remove() {} };
  }
  try {
    accessSync('/dev/shm', constants.W_OK);
    const fs = statfsSync('/dev/shm');
    if (fs.type === TMPFS && fs.bavail * fs.bsize >= ROOM_NEEDED) {
      const path = mkdtempSync('/dev/shm/dea-test-run-');
      // As /tmp is: the run's PostgreSQL runs as the postgres user when the tests run as root.
      chmodSync(path, 0o1777);
      return {
        path,
        why: 'in memory, tmpfs',
        remove: () => rmSync(path, { recursive: true, force: true }),
      };
    }
  } catch {
    // No /dev/shm to write to: the system's temporary folder below.
  }
  return { path: tmpdir(), why: "the system's temporary folder", remove() {} };
}

/**
 * The run's scratch folder made the TMPDIR of this process and of every process it starts, and
 * removed when it exits, interrupted (Ctrl-C) or stopped included. Answers it, to print.
 */
export function useScratchFolder() {
  const scratch = scratchFolder();
  process.env.TMPDIR = scratch.path;
  process.on('exit', () => scratch.remove());
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])
    process.on(signal, () => process.exit(code));
  return scratch;
}
