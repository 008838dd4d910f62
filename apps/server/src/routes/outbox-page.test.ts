import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bodies } from '../testing/api-bodies.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

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
});
