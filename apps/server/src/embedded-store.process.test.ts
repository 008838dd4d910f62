import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodies } from './testing/api-bodies.js';
import { exitOf, runDea, startServerProcess } from './testing/processes.js';

/** Signs in as the demo user over HTTP; answers a POST to /dea/api/ with its session, and the user id. */
async function signedInAsDemo(base: string) {
  const signIn = await fetch(`${base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'demo', password: 'demo' }),
  });
  const cookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const xsrf = cookies.find((cookie) => cookie.startsWith('XSRF-TOKEN='))?.split('=')[1] ?? '';
  const headers = { 'content-type': 'application/json', cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
  const post = (path: string, body: unknown) =>
    fetch(`${base}/dea/api/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const { userId } = (await (await post('userinfo', {})).json()) as { userId: string };
  return { post, userId };
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-embedded-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const SECRET = Buffer.alloc(32, 5).toString('base64');

/** One embedded store is one server's: a second is refused, the CLI works beside it. */
describe('the embedded store and its processes', () => {
  it('refuses a second server on the same data folder at start, and takes it once the first is gone, even killed', async () => {
    const dir = dataDir();
    const env = { DEA_DATA_DIR: dir, DEA_SECRET: SECRET };
    const first = await startServerProcess(env, ['--demo']);
    const second = await startServerProcess(env).then(
      (running) => {
        running.child.kill('SIGKILL');
        return 'the second server started';
      },
      (error: Error) => error.message,
    );
    expect(second).toMatch(/server exited with 1/);
    expect(second).toContain(`another server already runs on the embedded store in ${dir}`);
    expect(second).toContain('DEA_DATA_DIR');
    // The first one is untouched.
    expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
    const exited = exitOf(first.child);
    first.child.kill('SIGKILL');
    await exited;
    const third = await startServerProcess(env);
    expect((await fetch(`${third.base}/readyz`)).status).toBe(200);
    const stopped = exitOf(third.child);
    third.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });

  it('lets the CLI write beside a running server: under a burst of sign-ins on both sides, none fails', async () => {
    const dir = dataDir();
    const env = { DEA_DATA_DIR: dir, DEA_SECRET: SECRET, DEA_PASSWORD_HASH_COST: '10' };
    // Every sign-in reaches its check: none is turned away by a limit, the hashing queue, the
    // sign-ins in flight (error 140 once more than 24 are, as on a loaded machine) or a wait for
    // sign-in's store lane (503 after DEA_DB_CONNECT_TIMEOUT_MS).
    const server = await startServerProcess(
      {
        ...env,
        DEA_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
        DEA_PASSWORD_HASH_QUEUE: '100',
        DEA_SIGNIN_MAX_IN_FLIGHT: '100',
        DEA_DB_CONNECT_TIMEOUT_MS: '120000',
      },
      ['--demo'],
    );
    try {
      // Each writes its attempt and its audit entry; the right password also a session.
      const signIn = async (_: unknown, index: number): Promise<number> => {
        const response = await fetch(`${server.base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            index % 10 === 0
              ? { username: 'demo', password: 'demo' }
              : { username: `nobody-${index}`, password: 'x' },
          ),
        });
        return response.status === 200
          ? ((await response.json()) as { error: number }).error
          : response.status;
      };
      const { post, userId } = await signedInAsDemo(server.base);
      // Each reads the user's unused codes, then writes one: the store's limit holds across processes.
      const create = async (): Promise<number> => {
        const response = await post('tempPass/create', bodies.create(userId));
        return response.status === 200
          ? ((await response.json()) as { error: number }).error
          : response.status;
      };
      const [creates, signIns, commands] = await Promise.all([
        Promise.all(Array.from({ length: 40 }, create)),
        Promise.all(Array.from({ length: 60 }, signIn)),
        Promise.all(
          Array.from({ length: 6 }, (_, index) =>
            index % 2 === 0
              ? runDea(['group', 'add', '--name', `Beside-${index}`, '--priority', String(index + 1)], env)
              : runDea(
                  [
                    'user',
                    'add',
                    '--username',
                    `beside-${index}`,
                    '--full-name',
                    'Beside',
                    '--password-stdin',
                  ],
                  env,
                  'a long password\n',
                ),
          ),
        ),
      ]);
      // 0 for demo (six in flight at most, one over its own limit: 140 is possible only for it),
      // 3 for the unknown names; never a 500.
      expect(
        signIns.filter((answer, index) => answer !== (index % 10 === 0 ? 0 : 3) && answer !== 140),
      ).toEqual([]);
      expect(signIns.filter((answer, index) => index % 10 !== 0 && answer !== 3)).toEqual([]);
      for (const command of commands) expect(command).toMatchObject({ code: 0, stderr: '' });
      // demo may hold 5 unused codes: the other 35 are 148, never a 500.
      expect(creates.filter((answer) => answer === 0)).toHaveLength(5);
      expect(creates.filter((answer) => answer === 148)).toHaveLength(35);
      expect(server.output()).not.toMatch(/database is locked|SQLITE_BUSY/);
    } finally {
      const stopped = exitOf(server.child);
      server.child.kill('SIGTERM');
      await stopped;
    }
  });
});
