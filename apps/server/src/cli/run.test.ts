import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../crypto/secret-keys.js';
import { outboxProvider } from '../delivery/outbox-provider.js';
import { STORE_KINDS, openTestStore, type TestStore } from '../testing/stores.js';
import { runCli } from './run.js';

const SECRET = Buffer.alloc(32, 9).toString('base64');

async function run(argv: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { env, out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe.each(STORE_KINDS)('dea outbox list on %s', (kind) => {
  let testStore: TestStore;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    testStore = await openTestStore(kind);
    env = { DEA_SECRET: SECRET, DEA_DATA_DIR: testStore.dataDir, DATABASE_URL: testStore.databaseUrl };
    let at = Date.UTC(2026, 10, 21, 9, 0, 0);
    const outbox = outboxProvider(
      testStore.store,
      deriveKeys(Buffer.from(SECRET, 'base64')).seal,
      () => (at += 1000),
    );
    for (const [index, recipient] of [
      '+49 170 5550112',
      'chris.channel@example.com',
      '@chris_channel',
    ].entries()) {
      await outbox.deliver({
        channelType: (['sms', 'smtp', 'TWITTER'] as const)[index] ?? 'sms',
        recipient,
        subject: 'Your emergency code',
        text: `Your emergency code is CODE${index}2345.`,
        userId: null as unknown as string,
        idempotencyKey: `key-${index}`,
      });
    }
  });
  afterAll(() => testStore.dispose());

  it('prints the newest messages unsealed', async () => {
    const { code, out } = await run(['outbox', 'list'], env);
    expect(code).toBe(0);
    expect(out).toContain('2026-11-21T09:00:06.000Z  TWITTER  to @chris_channel');
    expect(out).toContain('  Subject: Your emergency code');
    expect(out).toContain('  Your emergency code is CODE02345.');
    expect(out.indexOf('CODE22345')).toBeLessThan(out.indexOf('CODE02345'));
  });

  it('takes --limit and --json', async () => {
    const { code, out } = await run(['outbox', 'list', '--limit', '2', '--json'], env);
    expect(code).toBe(0);
    const messages = JSON.parse(out) as { recipient: string; text: string }[];
    expect(messages.map((message) => message.recipient)).toEqual([
      '@chris_channel',
      'chris.channel@example.com',
    ]);
  });

  it('refuses a wrong invocation with exit code 2 and the usage', async () => {
    expect(await run(['outbox', 'list', '--limit', 'many'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('--limit'),
    });
    expect(await run(['outbox', 'list', '--verbose'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('Usage: dea outbox list'),
    });
    expect(await run(['outbox', 'purge'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('Unknown command'),
    });
    expect(await run(['--help'], env)).toMatchObject({
      code: 0,
      out: expect.stringContaining('dea outbox list'),
    });
  });

  it('names a bad setting and never opens an empty store elsewhere', async () => {
    expect(await run(['outbox', 'list'], { ...env, DEA_DELIVERY_RETRIES: 'many' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('DEA_DELIVERY_RETRIES'),
    });
    if (kind === 'sqlite') {
      expect(
        await run(['outbox', 'list'], { DEA_SECRET: SECRET, DEA_DATA_DIR: `${testStore.dataDir}/missing` }),
      ).toMatchObject({
        code: 2,
        err: expect.stringContaining('no embedded store'),
      });
    }
  });
});

describe('dea migrate on a folder without a store', () => {
  const folders: string[] = [];
  afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

  it('makes a new embedded store (folder 0700, generated secret 0600) that the other commands then open', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dea-new-store-'));
    folders.push(parent);
    const dataDir = join(parent, 'data');
    const env = { DEA_DATA_DIR: dataDir };
    expect(await run(['migrate', '--dry-run'], env)).toMatchObject({
      code: 2,
      err: expect.stringContaining('no embedded store'),
    });
    expect(existsSync(dataDir)).toBe(false);

    const made = await run(['migrate'], env);
    expect(made).toMatchObject({ code: 0, err: '' });
    expect(made.out).toContain(`Made a new embedded store in ${dataDir}.`);
    expect(made.out).toMatch(/Applied .*; the schema is at /);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    expect(await run(['migrate'], env)).toMatchObject({
      code: 0,
      out: expect.stringContaining('up to date'),
    });
    expect(await run(['user', 'list'], env)).toMatchObject({ code: 0 });
  });

  it('takes DEA_SECRET when it is set, and writes no secret key file then', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dea-new-store-'));
    folders.push(dataDir);
    const env = { DEA_DATA_DIR: dataDir, DEA_SECRET: SECRET };
    expect(await run(['migrate'], env)).toMatchObject({ code: 0 });
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
    expect(await run(['user', 'list'], env)).toMatchObject({ code: 0 });
  });
});

describe('dea --version', () => {
  it("prints the release's version, with no setting, store or secret needed", async () => {
    const root = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const option of ['--version', '-V']) {
      expect(await run([option], {})).toEqual({ code: 0, out: `dea ${root.version}`, err: '' });
    }
    expect((await run(['--help'], {})).out).toContain(`dea --version (this is ${root.version})`);
  });
});
