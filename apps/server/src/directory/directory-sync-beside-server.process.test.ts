import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exitOf, runDea, startServerProcess, type RunningServer } from '../testing/processes.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../testing/ldap-tree.js';

const SECRET = Buffer.alloc(32, 6).toString('base64');

/**
 * `dea directory sync` beside a server on the same embedded store: SQLite lets one process write
 * at a time and a server waiting for the file answers nothing, so the command asks the server to
 * write the sync between its requests (sync-requests.ts) and prints it as its own.
 */
describe('dea directory sync beside a server on the embedded store', () => {
  let tree: LdapTree;
  let dataDir: string;
  let server: RunningServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    tree = await createLdapTree(inject('ldap'));
    dataDir = mkdtempSync(join(tmpdir(), 'dea-sync-beside-'));
    env = { ...tree.settings, DEA_DATA_DIR: dataDir, DEA_SECRET: SECRET, DEA_LDAP_SYNC_MINUTES: '0' };
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    await exited;
    await tree.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is written by the server and printed by the command; the server answers throughout', async () => {
    const sync = runDea(['directory', 'sync'], env);
    // The server answers while the sync it took runs.
    const signIn = await fetch(`${server.base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bob', password: DIRECTORY_PEOPLE.bob.password }),
    });
    expect(await signIn.json()).toMatchObject({ error: 0 });
    const { code, stdout, stderr } = await sync;
    expect(stderr).toContain(`a server runs on the embedded store in ${dataDir}`);
    expect(stdout).toMatch(/^Directory sync, full pass \(first sync\): \d created, \d updated, 0 disabled/m);
    expect(code).toBe(0);
    expect(server.output()).toContain('directory sync asked by dea directory sync finished');

    // Asked again: a sync by change, with nothing changed.
    const again = await runDea(['directory', 'sync', '--full'], env);
    expect(again.stdout).toMatch(
      /^Directory sync, full pass \(asked for\): 0 created, 0 updated, 0 disabled/m,
    );
    expect(again.code).toBe(0);
    const audit = await runDea(['audit', 'list', '--event', 'directory.synced'], env);
    expect(audit.stdout.match(/directory\.synced/g)).toHaveLength(2);
  });

  it('without a server, the command writes the sync itself', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'dea-sync-alone-'));
    try {
      expect((await runDea(['migrate'], { ...env, DEA_DATA_DIR: alone })).code).toBe(0);
      const { code, stdout, stderr } = await runDea(['directory', 'sync'], { ...env, DEA_DATA_DIR: alone });
      expect(stderr).not.toContain('a server runs');
      expect(stdout).toMatch(/^Directory sync, full pass \(first sync\): 4 created/m);
      expect(code).toBe(0);
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });
});
