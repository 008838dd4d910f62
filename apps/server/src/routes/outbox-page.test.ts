import { usernameOrThrow } from '@dea/contract';
import type { FastifyInstance } from 'fastify';
import type { SendType } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import { API, bodies } from '../testing/api-bodies.js';
import { createTestApp, testConfig, type TestApp, type TestUser } from '../testing/test-app.js';
import { DEMO_PASSWORD } from '../seed/demo-data.js';

const CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel' };

/** One of the users the demo seeding created, as the tests' helpers take a user. */
async function demoUser(t: TestApp, username: string): Promise<TestUser> {
  const user = await t.services.store.users.findByUsername(usernameOrThrow(username));
  if (user === undefined) throw new Error(`no demo user ${username}`);
  return { id: user.id, username, password: DEMO_PASSWORD };
}

async function sendByChannel(t: TestApp, user: TestUser, key: string, type: SendType): Promise<void> {
  const channel = (await t.services.store.channels.listOfUser(user.id)).find((each) => each.key === key);
  const sent = await t.call(
    `${API}/tempPass/createAndSend`,
    bodies.createAndSend(user.id, type, channel?.id ?? ''),
    await t.signIn(user),
  );
  expect(sent.json()).toMatchObject({ error: 0 });
}

const outboxOf = (app: FastifyInstance, cookie = '') =>
  app.inject({ method: 'GET', url: '/dea/outbox', headers: { cookie } });

describe('the demo outbox page', () => {
  let demo: TestApp;
  let production: TestApp;
  beforeAll(async () => {
    demo = await createTestApp('sqlite', { DEA_DEMO: 'true' });
    production = await createTestApp('sqlite', { DEA_DEMO: 'false' });
  });
  afterAll(async () => {
    await demo.close();
    await production.close();
  });

  it("shows the signed-in demo user's own messages, escaped, with masked recipients", async () => {
    const chris = await demoUser(demo, 'demo-channel');
    await demo.services.store.channels.set({
      id: 'escaped',
      userId: chris.id,
      key: 'twitter',
      address: '@<b>chris',
      createdAt: demo.clock.now(),
    });
    await sendByChannel(demo, chris, 'twitter', 'TWITTER');
    const page = await outboxOf(demo.app, (await demo.signIn(chris)).headers.cookie);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toMatch(/Your emergency code is [2-9A-Z]{10}\./);
    expect(page.body).toContain('@&lt;b***');
    expect(page.body).not.toContain('<b>');
    // Another demo user sees none of it.
    const dana = await outboxOf(demo.app, (await demo.signIn(await demoUser(demo, 'demo'))).headers.cookie);
    expect(dana.statusCode).toBe(200);
    expect(dana.body).not.toMatch(/emergency code is/);
  });

  it('needs a session, and does not exist outside demo mode', async () => {
    expect((await outboxOf(demo.app)).statusCode).toBe(403);
    const user = await production.createUser({ policy: CHANNEL });
    const session = await production.signIn(user);
    expect((await outboxOf(production.app, session.headers.cookie)).statusCode).toBe(404);
  });

  it('never shows a message of a channel type whose provider is now a real one', async () => {
    const chris = await demoUser(demo, 'demo-channel');
    await sendByChannel(demo, chris, 'mobile', 'sms');
    expect((await outboxOf(demo.app, (await demo.signIn(chris)).headers.cookie)).body).toMatch(
      /Your emergency code is [2-9A-Z]{10}\./,
    );

    // The same store, restarted with a real SMS gateway configured.
    const { services } = await startServices(
      testConfig(
        { DEA_DEMO: 'true', DEA_DELIVERY_SMS: 'http', DEA_SMS_HTTP_URL: 'http://127.0.0.1:9/sms' },
        demo.testStore.dataDir,
      ),
    );
    const app = await buildApp({ services });
    try {
      const signIn = await app.inject({
        method: 'POST',
        url: '/login/api/session',
        payload: { username: chris.username, password: chris.password },
      });
      const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const page = await outboxOf(app, cookie);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('<td>sms</td>');
      expect(page.body).toContain('<td>TWITTER</td>');
    } finally {
      await app.close();
      await services.store.close();
    }
  });
});

describe('the demo outbox on a store with users besides the demo users', () => {
  it('is gone from the next request once a user besides the demo users is added', async () => {
    const t = await createTestApp('sqlite', { DEA_DEMO: 'true' });
    try {
      const chris = await demoUser(t, 'demo-channel');
      await sendByChannel(t, chris, 'email', 'smtp');
      const cookie = (await t.signIn(chris)).headers.cookie;
      expect((await outboxOf(t.app, cookie)).statusCode).toBe(200);
      const real = await t.createUser({ policy: CHANNEL, channels: { email: 'real@example.com' } });
      expect((await outboxOf(t.app, cookie)).statusCode).toBe(404);
      await sendByChannel(t, real, 'email', 'smtp');
      expect((await outboxOf(t.app, (await t.signIn(real)).headers.cookie)).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('is never served, and no demo user created, when a store of real users starts in demo mode', async () => {
    const first = await createTestApp('sqlite', { DEA_DEMO: 'false' });
    const real = await first.createUser({ policy: CHANNEL, channels: { email: 'real@example.com' } });
    await sendByChannel(first, real, 'email', 'smtp');
    await first.app.close();
    await first.services.store.close();
    const { services, seededDemo, demoMode } = await startServices(
      testConfig({ DEA_DEMO: 'true' }, first.testStore.dataDir),
    );
    const app = await buildApp({ services });
    try {
      expect(seededDemo).toBe(false);
      expect(demoMode).toMatchObject({ on: false, refusal: expect.stringContaining('demo mode is off') });
      expect((await services.store.users.list()).map((user) => user.username)).toEqual([real.username]);
      const signIn = await app.inject({
        method: 'POST',
        url: '/login/api/session',
        payload: { username: real.username, password: real.password },
      });
      expect(signIn.json()).toMatchObject({ error: 0 });
      const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      expect((await outboxOf(app, cookie)).statusCode).toBe(404);
    } finally {
      await app.close();
      await services.store.close();
      await first.testStore.dispose();
    }
  });
});
