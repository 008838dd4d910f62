import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { createLogger } from '../../logging.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { refusedPort } from '../../testing/http-peer.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';

describe('a delivery that fails', () => {
  let t: TestApp;
  let app: TestApp['app'];
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      DEA_SMTP_HOST: '127.0.0.1',
      DEA_SMTP_PORT: String(await refusedPort()),
      DEA_SMTP_SECURE: 'none',
      DEA_SMTP_FROM: 'dea@example.com',
      DEA_DELIVERY_RETRIES: '0',
    });
    app = await buildApp({
      services: t.services,
      logger: createLogger('info', {
        write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
      }),
    });
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  it('is logged with its provider and cause, never with the code or the full address', async () => {
    const user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      channels: { email: 'chris.channel@example.com' },
    });
    const session = await t.signIn(user);
    const [channel] = await t.services.store.channels.listOfUser(user.id);
    const answer = await app.inject({
      method: 'POST',
      url: `${API}/tempPass/createAndSend`,
      headers: session.headers,
      payload: bodies.createAndSend(user.id, 'smtp', channel?.id ?? ''),
    });
    expect(answer.json()).toMatchObject({ error: 150 });
    const failure = lines.find((line) => line.msg === 'delivery failed');
    expect(failure).toMatchObject({ level: 40, channel: 'smtp', provider: 'smtp', attempts: 1 });
    expect(String(failure?.reason)).toMatch(/^SMTP E\w+/);
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('chris.channel@example.com');
    // The code that did not arrive is dead.
    expect(await t.services.store.codes.listActive(user.id, t.clock.now())).toEqual([]);
  });
});
