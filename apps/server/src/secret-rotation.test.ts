import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from './cli/run.js';
import { newId } from './crypto/ids.js';
import { outboxProvider } from './delivery/outbox-provider.js';
import { createServiceKey } from './domain/codes/service-keys.js';
import { bodies } from './testing/api-bodies.js';
import { createUserWithCodes, signInOver, startInstance, type Instance } from './testing/instances.js';
import { createTestDatabase } from './testing/postgres-cluster.js';

const OLD = Buffer.alloc(32, 0x11).toString('base64');
const NEW = Buffer.alloc(32, 0x22).toString('base64');

/**
 * Replacing DEA_SECRET on PostgreSQL as the upgrades guide says (docs/operator/upgrades.md), instance by instance: step 1 accepts the
 * new secret while still making with the old; step 2 makes with the new one and accepts the old.
 * What the old secret made keeps working on every step; `dea secret status` says what still needs it.
 */
describe('replacing DEA_SECRET on two instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const started: Instance[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresUrl'));
  });
  afterAll(async () => {
    for (const instance of started) {
      await instance.app.close();
      await instance.services.store.close();
      rmSync(instance.dataDir, { recursive: true, force: true });
    }
    await database.drop();
  });

  async function start(secret: string, previous = ''): Promise<Instance> {
    const instance = await startInstance(database.url, { DEA_SECRET: secret, DEA_SECRET_PREVIOUS: previous });
    started.push(instance);
    return instance;
  }

  const dea = async (secret: string, previous: string, ...argv: string[]) => {
    const out: string[] = [];
    const code = await runCli(argv, {
      env: {
        DATABASE_URL: database.url,
        DEA_SECRET: secret,
        DEA_SECRET_PREVIOUS: previous,
        DEA_DATA_DIR: '/nonexistent',
      },
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    return { code, out: out.join('\n') };
  };

  const post = (instance: Instance, path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${instance.base}/dea/api/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

  async function codeOnScreen(
    instance: Instance,
    userId: string,
    headers: Record<string, string>,
  ): Promise<string> {
    const answer = (await (
      await post(instance, 'tempPass/create', bodies.create(userId), headers)
    ).json()) as {
      result: { rows: { password: string }[] };
    };
    return answer.result.rows[0]?.password ?? '';
  }

  async function verify(instance: Instance, key: string, userId: string, code: string): Promise<boolean> {
    const response = await post(
      instance,
      'tempPass/verify',
      { userId, code },
      {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
      },
    );
    return ((await response.json()) as { result: { valid: boolean } | null }).result?.valid ?? false;
  }

  it('keeps what the old secret made working through both steps, and says when the old one can go', async () => {
    const old = await start(OLD);
    const { store } = old.services;
    const now = Date.now();
    const user = await createUserWithCodes(store, 20, 'Rotation');

    // Made with the old secret: a session, codes, two service keys and an outbox message.
    const session = await signInOver(old, user.username);
    const oldCodes = [await codeOnScreen(old, user.id, session), await codeOnScreen(old, user.id, session)];
    const used = await createServiceKey(store, old.services.keys.serviceKey, 'used-key', ['verify'], now);
    const idle = await createServiceKey(store, old.services.keys.serviceKey, 'idle-key', ['verify'], now);
    await outboxProvider(store, old.services.keys.seal).deliver({
      channelType: 'smtp',
      recipient: 'r@example.com',
      subject: 's',
      text: 't',
      userId: user.id,
      idempotencyKey: newId(),
    });

    // Step 1, on every instance: DEA_SECRET still the old one, the new one accepted.
    const step1 = await start(OLD, NEW);
    expect((await post(step1, 'userinfo', {}, session)).status).toBe(200);

    // Step 2: the new secret makes, the old one is accepted. Two instances start at once.
    const [next, other] = await Promise.all([start(NEW, OLD), start(NEW, OLD)]);
    if (next === undefined || other === undefined) throw new Error('no instances');
    expect((await post(next, 'userinfo', {}, session)).status).toBe(200);
    expect(await verify(next, used.key, user.id, oldCodes[0] ?? '')).toBe(true);
    // The key used after the rotation was hashed again with the new secret.
    expect((await store.serviceKeys.findById(used.serviceKey.id))?.keyHash).not.toBe(used.serviceKey.keyHash);
    // A code made with the new secret works on a step-1 instance too (nothing fails mid-rollout)...
    const newCode = await codeOnScreen(next, user.id, session);
    expect(await verify(step1, used.key, user.id, newCode)).toBe(true);
    // ...but not on an instance that never learnt the new secret: why step 1 comes first.
    const anotherNew = await codeOnScreen(other, user.id, session);
    expect(await verify(old, idle.key, user.id, anotherNew)).toBe(false);

    const status = await dea(NEW, OLD, 'secret', 'status');
    expect(status.code).toBe(0);
    expect(status.out).toContain(
      `DEA_SECRET: fingerprint ${next.services.keys.fingerprint}, the store's secret.`,
    );
    expect(status.out).toContain(`It replaced ${old.services.keys.fingerprint} on `);
    expect(status.out).toContain('1 unused code made before it');
    expect(status.out).toContain('1 open session started before it');
    expect(status.out).toContain('1 outbox message sealed before it');
    expect(status.out).toContain('1 service key not used since (idle-key)');
    expect(status.out).toContain(
      'Keep DEA_SECRET_PREVIOUS until the outbox and service keys above are dealt with',
    );

    expect(await dea(NEW, OLD, 'secret', 'reseal')).toEqual({
      code: 0,
      out: 'Sealed 1 outbox message again with the current secret.',
    });
    expect(await verify(next, idle.key, user.id, oldCodes[1] ?? '')).toBe(true);
    const after = await dea(NEW, OLD, 'secret', 'status');
    expect(after.out).not.toContain('outbox message');
    expect(after.out).not.toContain('service key');
    expect(after.out).not.toContain('unused code');
    expect(after.out).toMatch(/Keep DEA_SECRET_PREVIOUS until \S+; then remove it from every instance\./);

    // Once the old secret is retired, nothing starts with it again, not even with the new one accepted.
    await expect(start(OLD, NEW)).rejects.toThrow(/was replaced by a newer secret in this store/);
    expect((await dea(OLD, '', 'user', 'list')).out).toContain('was replaced by a newer secret');
    // Without DEA_SECRET_PREVIOUS the new secret alone runs; the old session's token no longer counts.
    const alone = await start(NEW);
    expect((await post(alone, 'userinfo', {}, session)).status).toBe(403);
  });
});
