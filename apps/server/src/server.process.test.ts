import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from './crypto/password-hash.js';
import { openStore } from './store/open-store.js';
import { demoUserGetsCode } from './testing/demo-journey.js';
import { builtEntry, exitOf, spawnServer, startServerProcess } from './testing/processes.js';

const startServer = startServerProcess;

/** The messages of the process's output, every line of which must be one JSON object. */
function messages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-process-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the server process', () => {
  it('starts on an embedded store with demo users, serves the API, keeps secrets out of its logs and stops gracefully', async () => {
    const dir = dataDir();
    const server = await startServer({ DEA_DATA_DIR: dir, DEA_LOG_LEVEL: 'info' }, ['--demo']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dea\/$/);
    // Not a terminal: every line the process writes is one JSON object.
    // The line after the one that says where it runs.
    await expect
      .poll(() => messages(server.output()))
      .toContain('demo users, password "demo" for each: demo, demo-channel, demo-off');
    // The start line names the release; a new store's start names the schema changes it made.
    const release = (
      JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(
      messages(server.output()).some((line) =>
        line.startsWith(`Emergency Access ${release} is running: http`),
      ),
    ).toBe(true);
    expect(
      messages(server.output()).find((line) => line.startsWith('schema changes applied: 0001-initial')),
    ).toMatch(/\(release [^)]+\)$/);

    const base = server.url.replace(/\/dea\/$/, '');
    const { code, sessionId, xsrf } = await demoUserGetsCode(base);
    expect(code).toMatch(/^[2-9A-Z]{10}$/);

    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const logs = server.output();
    expect(logs).toContain('"msg":"shutting down: /readyz answers 503');
    expect(logs).toContain('/dea/api/tempPass/create');
    for (const secret of [code, sessionId, xsrf, '"demo"}']) expect(logs).not.toContain(secret);

    // A second start on the same store, even without demo mode, keeps the users, does not seed
    // again, and warns loudly that public demo accounts exist.
    const again = await startServer({ DEA_DATA_DIR: dir, DEA_LOG_LEVEL: 'info' });
    await expect
      .poll(() => messages(again.output()))
      .toEqual(
        expect.arrayContaining([
          'demo users, password "demo" for each: demo, demo-channel, demo-off',
          'demo accounts with the public password "demo" exist in this store',
        ]),
      );
    const stopped = exitOf(again.child);
    again.child.kill('SIGINT');
    expect(await stopped).toBe(0);
  });

  it('drains on SIGTERM: /readyz 503 at once while requests are still served, then closes and exits 0', async () => {
    const server = await startServer({
      DEA_DATA_DIR: dataDir(),
      DEA_LOG_LEVEL: 'info',
      // Long enough for the requests below on a loaded machine; the drain lasts this long in any case.
      DEA_SHUTDOWN_DRAIN_SECONDS: '5',
    });
    const base = server.url.replace(/\/dea\/$/, '');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const exited = exitOf(server.child);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: 4000 }).toBe(503);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'draining' });
    // Still serving everything else while the load balancer takes the instance out.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const languages = await fetch(`${base}/dea/api/resourceFile/getLanguageList`);
    expect(languages.status).toBe(200);
    expect(await exited).toBe(0);
    // The drain's length is the rule (a lower bound: the machine's load can only add to it).
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(4900);
    expect(messages(server.output())).toEqual(
      expect.arrayContaining(['closing the listener; requests under way finish']),
    );
  });

  it('writes the request lines still waiting when it exits, after every other line', async () => {
    // Request lines wait in memory (DEA_REQUEST_LOG_WAIT_MS); this one is answered after the last
    // other line, during the close: only the write at exit puts it in the log.
    const server = await startServer({
      DEA_DATA_DIR: dataDir(),
      DEA_LOG_LEVEL: 'info',
      DEA_REQUEST_LOG_WAIT_MS: '10000',
    });
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = '{"username":"nobody","code":"2345678923"}';
    // Half a request is under way when the listener closes; the close waits for it.
    socket.write(
      `POST /dea/api/tempPass/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    const answered = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n')) resolve(text);
      });
    });
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    await expect.poll(() => server.output()).toContain('closing the listener; requests under way finish');
    socket.end(body.slice(10));
    expect(await answered).toMatch(/^HTTP\/1\.1 401/);
    expect(await exited).toBe(0);
    const lines = messages(server.output());
    expect(lines.at(-1)).toBe('request completed');
    expect(server.output()).toContain('"path":"/dea/api/tempPass/verify","statusCode":401');
  });

  it('stops at once on a second signal during the drain', async () => {
    const server = await startServer({ DEA_DATA_DIR: dataDir(), DEA_SHUTDOWN_DRAIN_SECONDS: '300' });
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    const base = server.url.replace(/\/dea\/$/, '');
    await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: 10_000 }).toBe(503);
    server.child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('creates no demo users and no demo outbox unless demo mode is asked for', async () => {
    const server = await startServer({ DEA_DATA_DIR: dataDir(), DEA_LOG_LEVEL: 'info' });
    expect(server.output()).not.toContain('demo users');
    expect(server.output()).not.toContain('demo accounts');
    const base = server.url.replace(/\/dea\/$/, '');
    const signIn = await fetch(`${base}/login/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo' }),
    });
    expect(await signIn.json()).toMatchObject({ error: 3 });
    expect((await fetch(`${base}/dea/outbox`)).status).toBe(404);
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('--demo on a store holding a real user creates no demo users, serves no outbox, and says why', async () => {
    const dir = dataDir();
    const store = await openStore({ dataDir: dir });
    await store.users.create({
      id: 'real-1',
      username: usernameOrThrow('alice'),
      passwordHash: await hashPassword('a long password', 10),
      fullName: 'Alice Real',
      locale: 'en',
      createdAt: Date.now(),
    });
    await store.close();
    const server = await startServer({ DEA_DATA_DIR: dir, DEA_LOG_LEVEL: 'info' }, ['--demo']);
    try {
      const warning = messages(server.output()).find((message) => message.startsWith('demo mode is off'));
      expect(warning).toMatch(/^demo mode is off: this store holds 1 user besides the demo users/);
      expect(warning).toContain('/dea/outbox');
      expect(warning).toContain('Start without --demo');
      const signIn = async (username: string, password: string) =>
        fetch(`${server.base}/login/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username, password }),
        });
      expect(await (await signIn('demo', 'demo')).json()).toMatchObject({ error: 3 });
      const alice = await signIn('alice', 'a long password');
      expect(await alice.clone().json()).toMatchObject({ error: 0 });
      const cookie = alice.headers
        .getSetCookie()
        .map((each) => each.split(';')[0])
        .join('; ');
      expect((await fetch(`${server.base}/dea/outbox`, { headers: { cookie } })).status).toBe(404);
    } finally {
      const exited = exitOf(server.child);
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('answers --help with its usage and --version with the release, starting nothing; refuses an unknown argument', async () => {
    const release = (
      JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      }
    ).version;
    for (const [args, code, stream, text] of [
      [['--help'], 0, 'stdout', 'Usage: node apps/server/dist/server.js [--demo] [--version] [--help]'],
      [['--version'], 0, 'stdout', `Emergency Access ${release}\n`],
      [['--port=1'], 2, 'stderr', 'unknown argument "--port=1"'],
    ] as const) {
      const child = spawnServer([...args], { DEA_DATA_DIR: dataDir(), PORT: '0' });
      const output = { stdout: '', stderr: '' };
      child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
      expect(await exitOf(child)).toBe(code);
      expect(output[stream]).toContain(text);
      expect(output.stdout).not.toContain('running');
    }
  });

  it('at a terminal (npm start) writes readable lines: the address and the demo users stand out, no JSON', async () => {
    const release = (
      JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      }
    ).version;
    // script(1) gives the server a terminal, as npm start in a shell does.
    const child = spawn(
      'script',
      [
        '-qfec',
        `echo "server pid $$"; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(builtEntry('server'))} --demo`,
        '/dev/null',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          DEA_DATA_DIR: dataDir(),
          PORT: '0',
          HOST: '127.0.0.1',
          DEA_LOG_LEVEL: 'info',
          DEA_SHUTDOWN_DRAIN_SECONDS: '0',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const exited = exitOf(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/demo-off/.test(output) && /!!! WARNING/.test(output)) resolve();
      });
      void exited.then(() => reject(new Error(`exited:\n${output}`)));
    });
    // The server itself, in the terminal's own session (a hang-up only reloads its TLS), then script.
    process.kill(Number(/server pid (\d+)/.exec(output)?.[1]), 'SIGTERM');
    await exited;
    const lines = output.replaceAll('\r', '').split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Emergency Access ${release.replaceAll('.', '\\.')} is running: http://127\\.0\\.0\\.1:\\d+/dea/$`,
        ),
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}demo {11}\S/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} info {2}schema changes applied: 0001-initial/),
    );
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(/ info {2}closing the listener; requests under way finish$/),
    );
  });

  it('refuses to start on a bad setting, naming every bad field', async () => {
    const child = spawnServer([], {
      PORT: 'eighty',
      DEA_SESSION_IDLE_MINUTES: '600',
      DEA_DATA_DIR: dataDir(),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(stderr).toContain('PORT');
    expect(stderr).toContain('DEA_SESSION_IDLE_MINUTES');
  });

  it('refuses to start when the trusted proxies cover nearly every address, naming DEA_TRUST_PROXY, without a stack trace', async () => {
    for (const proxies of ['0.0.0.0/0', '0.0.0.0/1,128.0.0.0/1', '::/0']) {
      const child = spawnServer([], { PORT: '0', DEA_TRUST_PROXY: proxies, DEA_DATA_DIR: dataDir() });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      expect(await exitOf(child)).toBe(1);
      expect(output).toContain(`DEA_TRUST_PROXY=\\"${proxies}\\": refused, because together they cover`);
      expect(output).not.toMatch(/\n\s+at /);
      expect(output).not.toContain('"stack"');
    }
  });
});
