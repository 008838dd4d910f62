import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import { createLogger } from '../logging.js';
import { testConfig } from '../testing/test-app.js';

/** A small tmpfs of its own: a disk that really fills up. Mounting needs root. */
function mountSmallDisk(megabytes: number): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'dea-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Writes a file until the disk refuses another byte (ENOSPC). */
function fillDisk(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  // What is left, byte by byte in larger steps, is taken too.
  const rest = openSync(join(dir, 'filler-rest'), 'w');
  try {
    for (;;) writeSync(rest, Buffer.alloc(512, 1));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(rest);
  }
}

const disk = mountSmallDisk(8);

describe.skipIf(disk === undefined)('the embedded store on a full disk (a real tmpfs, as root)', () => {
  const dataDir = join(disk ?? '', 'data');
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  let services: Awaited<ReturnType<typeof startServices>>['services'];
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    ({ services } = await startServices(testConfig({}, dataDir)));
    const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    app = await buildApp({ services, logger });
  });
  afterAll(async () => {
    await app?.close();
    await services?.store.close().catch(() => undefined);
    if (disk !== undefined) {
      execFileSync('umount', [disk]);
      rmSync(disk, { recursive: true, force: true });
    }
  });

  it('answers 503 with Retry-After, and logs that the disk is full and where, not a failed rollback', async () => {
    const signIn = (username: string) =>
      app.inject({ method: 'POST', url: '/login/api/session', payload: { username, password: 'x' } });
    expect((await signIn('someone')).statusCode).toBe(200);

    fillDisk(disk ?? '');
    // Each attempt of a new name writes a row in a transaction; the log needs room for them.
    const statuses = new Set<number>();
    let refused;
    for (let attempt = 0; attempt < 2000 && refused === undefined; attempt++) {
      const answer = await signIn(`user-${attempt}-${'x'.repeat(180)}`);
      statuses.add(answer.statusCode);
      if (answer.statusCode !== 200) refused = answer;
    }
    expect(refused?.statusCode).toBe(503);
    expect(refused?.headers['retry-after']).toBeDefined();
    expect(refused?.json()).toMatchObject({ error: 1 });
    expect([...statuses].filter((status) => status !== 200 && status !== 503)).toEqual([]);

    const text = JSON.stringify(lines);
    expect(text).not.toContain('cannot rollback');
    const full = lines.filter((line) => line.level === 40 && /disk is full/.test(line.msg));
    expect(full.length).toBeGreaterThan(0);
    expect(full[0]?.msg).toContain(dataDir);
    expect(full[0]?.msg).toContain('DEA_DATA_DIR');
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);

    // Once there is room again, the store serves at once.
    rmSync(join(disk ?? '', 'filler'));
    expect((await signIn('someone-else')).statusCode).toBe(200);
  });
});
