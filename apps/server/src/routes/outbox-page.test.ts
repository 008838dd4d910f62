import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import { API, bodies } from '../testing/api-bodies.js';
import { createTestApp, testConfig, type TestApp } from '../testing/test-app.js';

const CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel' };

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

  it("shows the signed-in user's own messages, escaped, with masked recipients", async () => {
    const user = await demo.createUser({ policy: CHANNEL, channels: { twitter: '@<b>chris' } });
    const other = await demo.createUser({ policy: CHANNEL, channels: { mobile: '+49 170 5550999' } });
    for (const who of [user, other]) {
      const session = await demo.signIn(who);
      const [channel] = await demo.services.store.channels.listOfUser(who.id);
      const type = channel?.key === 'twitter' ? 'TWITTER' : 'sms';
      const sent = await demo.call(
        `${API}/tempPass/createAndSend`,
        bodies.createAndSend(who.id, type, channel?.id ?? ''),
        session,
      );
      expect(sent.json()).toMatchObject({ error: 0 });
    }
    const session = await demo.signIn(user);
    const page = await demo.app.inject({
      method: 'GET',
      url: '/dea/outbox',
      headers: { cookie: session.headers.cookie ?? '' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toMatch(/Your emergency code is [2-9A-Z]{10}\./);
    expect(page.body).toContain('@&lt;b***');
    expect(page.body).not.toContain('<b>');
    expect(page.body).not.toContain('5550999');
    expect(page.body).not.toContain('***99');
  });

  it('needs a session, and does not exist outside demo mode', async () => {
    expect((await demo.app.inject({ method: 'GET', url: '/dea/outbox' })).statusCode).toBe(403);
    const user = await production.createUser({ policy: CHANNEL });
    const session = await production.signIn(user);
    const page = await production.app.inject({
      method: 'GET',
      url: '/dea/outbox',
      headers: { cookie: session.headers.cookie ?? '' },
    });
    expect(page.statusCode).toBe(404);
  });

  it('never shows a message of a channel type whose provider is now a real one', async () => {
    const user = await demo.createUser({ policy: CHANNEL, channels: { mobile: '+49 170 5550123' } });
    const session = await demo.signIn(user);
    const [channel] = await demo.services.store.channels.listOfUser(user.id);
    await demo.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(user.id, 'sms', channel?.id ?? ''),
      session,
    );
    const outbox = (headers: Record<string, string>, app = demo.app) =>
      app.inject({ method: 'GET', url: '/dea/outbox', headers: { cookie: headers.cookie ?? '' } });
    expect((await outbox(session.headers)).body).toMatch(/Your emergency code is [2-9A-Z]{10}\./);

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
        payload: { username: user.username, password: user.password },
      });
      const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const page = await outbox({ cookie }, app);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toMatch(/emergency code is/);
    } finally {
      await app.close();
      await services.store.close();
    }
  });
});
