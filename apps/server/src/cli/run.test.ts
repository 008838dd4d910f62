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
