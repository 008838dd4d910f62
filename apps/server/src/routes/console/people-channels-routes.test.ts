import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';
import { newId } from '../../crypto/ids.js';

const BASE = '/dea/admin-api';
const CHANNEL_POLICY = { enableECode: true, emergencyCodeDelivery: 'Channel' };

/** The messages the outbox holds for a user, opened, oldest first. */
async function outbox(t: TestApp, userId: string): Promise<{ recipient: string; text: string }[]> {
  const messages = await t.services.store.outbox.list(1000, userId);
  return messages.reverse().map((message) => openOutboxMessage([t.services.keys.seal], message));
}

/** The proof code last sent to an address. */
async function proofCodeSentTo(t: TestApp, userId: string, recipient: string): Promise<string> {
  const sent = (await outbox(t, userId)).filter((message) => message.recipient === recipient).at(-1);
  const code = /\b(\d{8})\b/.exec(sent?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no proof code sent to ${recipient}`);
  return code;
}

async function addressesOf(t: TestApp, userId: string) {
  return (await t.services.store.channels.listOfUser(userId)).map((channel) => [
    channel.key,
    channel.address,
    channel.origin,
  ]);
}

describe.each(DOOR_STORE_KINDS)("a user's channels in the console on %s", (kind) => {
  // One app for the file: each test makes its own users, groups and console accounts.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it("an administrator adds a phone by the code the person reads out and removes it: each answer in its envelope, the address masked, the person's view showing the proof under way", async () => {
    const admin = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'olga@example.com' } });

    const started = await admin.post(`/admin/people/${user.id}/channels/proofs`, {
      key: 'mobile',
      address: '+49 170 5550161',
    });
    expect(started.json()).toMatchObject({
      error: 0,
      result: { proofId: expect.any(String), to: expect.not.stringContaining('5550161') },
    });
    const { proofId } = started.json<{ result: { proofId: string } }>().result;
    expect((await admin.get(`/admin/people/${user.id}`)).json()).toMatchObject({
      result: {
        editable: { channels: true },
        pendingChannels: [{ key: 'mobile', proofId, to: expect.not.stringContaining('5550161') }],
      },
    });
    const code = await proofCodeSentTo(t, user.id, '+491705550161');
    const wrong = code === '00000000' ? '11111111' : '00000000';
    expect(
      (await admin.post(`/admin/people/${user.id}/channels/prove`, { proofId, code: wrong })).json(),
    ).toMatchObject({ error: 3 });
    const proven = await admin.post(`/admin/people/${user.id}/channels/prove`, { proofId, code });
    expect(proven.json()).toMatchObject({ error: 0, result: { changed: ['channels.mobile'] } });
    expect(await addressesOf(t, user.id)).toEqual([
      ['email', 'olga@example.com', 'source'],
      ['mobile', '+491705550161', 'source'],
    ]);

    const removed = await admin.post(`/admin/people/${user.id}/channels/remove`, { key: 'mobile' });
    expect(removed.json()).toMatchObject({ error: 0, result: { changed: ['channels.mobile'] } });
    expect(await addressesOf(t, user.id)).toEqual([['email', 'olga@example.com', 'source']]);
  });

  it("a user outside a help-desk agent's scope is 404, an auditor 403, another source's user 409 naming the owner", async () => {
    const { store } = t.services;
    const staff = newId(t.clock.now());
    await store.groups.create({ id: staff, name: 'Staff EU', priority: 0 });
    const inside = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'in@example.com' } });
    await store.groups.addMember(staff, inside.id);
    const outside = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'out@example.com' } });
    const helper = await consoleAgent(t, BASE, 'helpdesk', true, ['--scope', 'Staff EU']);
    const auditor = await consoleAgent(t, BASE, 'auditor');

    const tries = [
      helper.post(`/admin/people/${outside.id}/channels/proofs`, { key: 'mobile', address: '+4917055501' }),
      helper.post(`/admin/people/${outside.id}/channels/prove`, { proofId: 'x', code: '12345678' }),
      helper.post(`/admin/people/${outside.id}/channels/remove`, { key: 'email' }),
    ];
    for (const answer of await Promise.all(tries)) expect(answer.statusCode).toBe(404);
    for (const answer of await Promise.all([
      auditor.post(`/admin/people/${inside.id}/channels/proofs`, { key: 'mobile', address: '+4917055501' }),
      auditor.post(`/admin/people/${inside.id}/channels/remove`, { key: 'email' }),
    ]))
      expect(answer.statusCode).toBe(403);
    expect(await addressesOf(t, inside.id)).toEqual([['email', 'in@example.com', 'source']]);

    await store.users.update(outside.id, { source: 'scim' });
    const admin = await consoleAgent(t, BASE, 'admin');
    const refused = await admin.post(`/admin/people/${outside.id}/channels/proofs`, {
      key: 'mobile',
      address: '+49 170 5550172',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toMatch(
      /channel list comes from the identity provider \(SCIM\)/,
    );
    expect(
      (await admin.post(`/admin/people/${outside.id}/channels/remove`, { key: 'email' })).statusCode,
    ).toBe(409);
    expect(await outbox(t, outside.id)).toEqual([]);
  });
});
