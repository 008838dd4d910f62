import { CHANNEL_DELIVERY_MODE } from '@dea/contract';
import { describe } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { API, bodies } from '../testing/api-bodies.js';
import { appTest } from '../testing/fixtures.js';
import { createPrivateCa } from '../testing/private-ca.js';
import { STORE_KINDS } from '../testing/stores.js';
import {
  eventually,
  idsOf,
  issued,
  receiver,
  SECRET,
  secondStore,
  taken,
  verified,
} from './webhooks-fixture.js';

describe.each(STORE_KINDS)('webhook messages on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'a used code and a lockout reach their endpoint signed, never with the code',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({
          'code.issued': endpoint.url,
          'code.used': endpoint.url,
          'code.verify_lockout': endpoint.url,
        }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
        DEA_VERIFY_MAX_FAILURES: '2',
      });
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'vpn',
        ['verify'],
        t.clock.now(),
      );
      const verify = (userId: string, code: string) =>
        t.call(`${API}/tempPass/verify`, { userId, code }, undefined, { authorization: `Bearer ${key}` });
      const { user, code } = await issued(t);
      expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
      const other = await issued(t);
      await verify(other.user.id, 'WRONG23456');
      await verify(other.user.id, 'WRONG23457');
      await eventually(() => endpoint.received.length >= 4);

      const messages = endpoint.received.map(verified);
      expect(messages.map((message) => message.type).sort()).toEqual([
        'code.issued',
        'code.issued',
        'code.used',
        'code.verify_lockout',
      ]);
      const used = messages.find((message) => message.type === 'code.used');
      expect(used?.data).toMatchObject({
        userId: user.id,
        username: user.username,
        actor: 'service-key:vpn',
        channel: 'screen',
        codeId: expect.any(String),
      });
      expect(messages.find((message) => message.type === 'code.verify_lockout')?.data).toMatchObject({
        userId: other.user.id,
        failures: 2,
      });
      for (const message of endpoint.received) {
        expect(message.body).not.toContain(code);
        expect(message.body).not.toContain(other.code);
        expect(message.headers['content-type']).toBe('application/json');
      }
      expect(new Set(endpoint.received.map((message) => message.headers['webhook-id'])).size).toBe(4);
    },
  );

  appTest(
    'a code sent to a channel is told without the code or the address',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.sent': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
      });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
        channels: { email: 'grace.hopper@example.com' },
      });
      const [channel] = await t.services.store.channels.listOfUser(user.id);
      const sent = await t.call(
        `${API}/tempPass/createAndSend`,
        bodies.createAndSend(user.id, 'smtp', channel?.id ?? ''),
        await t.signIn(user),
      );
      expect(sent.json()).toMatchObject({ error: 0 });
      await eventually(() => endpoint.received.length >= 1);
      const [message] = endpoint.received;
      if (message === undefined) throw new Error('nothing received');
      expect(verified(message)).toMatchObject({
        type: 'code.sent',
        data: { userId: user.id, username: user.username },
      });
      expect(message.body).not.toContain('grace.hopper@example.com');
      expect(await t.services.store.outbox.list(1, user.id)).toHaveLength(1);
    },
  );

  appTest(
    'an entry another store instance writes (dea, another server) raises its webhook, its id taken from the entry',
    async ({ startApp, expect, onTestFinished }) => {
      const ca = createPrivateCa();
      const endpoint = await receiver(ca, (_index, response) => response.writeHead(204).end());
      onTestFinished(async () => {
        await endpoint.close();
        ca.dispose();
      });
      const t = await startApp({
        DEA_WEBHOOKS: JSON.stringify({ 'code.used': endpoint.url }),
        DEA_WEBHOOK_SECRET: SECRET,
        DEA_WEBHOOK_CA_FILE: ca.caFile,
      });
      const user = await t.createUser();
      const other = await secondStore(t.testStore, t.services.keys);
      onTestFinished(() => other.close());
      await other.audit.append(
        {
          event: 'code.used',
          userId: user.id,
          actor: 'service-key:radius',
          details: { codeId: 'code-1', channel: 'screen' },
        },
        t.clock.now(),
      );
      await eventually(() => endpoint.received.length >= 1);
      const [message] = endpoint.received;
      if (message === undefined) throw new Error('nothing received');
      expect(verified(message)).toMatchObject({
        type: 'code.used',
        data: { userId: user.id, username: user.username, actor: 'service-key:radius', codeId: 'code-1' },
      });
      expect(taken(endpoint.received)).toEqual(await idsOf(t.services.store, 'code.used'));
    },
  );
});
