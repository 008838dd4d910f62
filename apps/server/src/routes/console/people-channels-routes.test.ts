import { describe, expect } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';
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

async function auditOf(t: TestApp, userId: string, event: string) {
  return (await t.services.store.audit.list({ userId, event, limit: 1000 })).filter(
    (entry) => entry.event === event,
  );
}

async function addressesOf(t: TestApp, userId: string) {
  return (await t.services.store.channels.listOfUser(userId)).map((channel) => [
    channel.key,
    channel.address,
    channel.origin,
  ]);
}

describe.each(STORE_KINDS)("a user's channels in the console on %s", (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'an administrator adds a phone, changes it and removes it; each address is proven by the code the person reads out, the other channels are told, the agent is audited',
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const actor = `console:${admin.username}`;
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
      // Nothing is the user's channel before the code comes back; the person's view shows it waiting.
      expect(await addressesOf(t, user.id)).toEqual([['email', 'olga@example.com', 'source']]);
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
      expect(await addressesOf(t, user.id)).toHaveLength(1);

      const proven = await admin.post(`/admin/people/${user.id}/channels/prove`, { proofId, code });
      expect(proven.json()).toMatchObject({ error: 0, result: { changed: ['channels.mobile'] } });
      // The administrators' channel, as the CLI's: usable at once.
      expect(await addressesOf(t, user.id)).toEqual([
        ['email', 'olga@example.com', 'source'],
        ['mobile', '+491705550161', 'source'],
      ]);
      const [notice] = (await outbox(t, user.id)).filter(
        (message) => message.recipient === 'olga@example.com',
      );
      expect(notice?.text).toContain('#undo=');
      expect(notice?.text).not.toContain(code);
      expect(await auditOf(t, user.id, 'channel.proof_sent')).toMatchObject([
        { actor, details: { key: 'mobile', origin: 'console' } },
      ]);
      expect(await auditOf(t, user.id, 'channel.registered')).toMatchObject([
        { actor, details: { key: 'mobile', origin: 'console', reproof: false } },
      ]);
      const [mobile] = (await t.services.store.channels.listOfUser(user.id)).filter(
        (channel) => channel.key === 'mobile',
      );
      const reference = mobile?.id ?? '';

      // A change: the old address stays the channel until the new one is proven, then is replaced.
      const change = await admin.post(`/admin/people/${user.id}/channels/proofs`, {
        key: 'mobile',
        address: '+49 170 5550162',
      });
      const changeId = change.json<{ result: { proofId: string } }>().result.proofId;
      expect(await addressesOf(t, user.id)).toContainEqual(['mobile', '+491705550161', 'source']);
      await admin.post(`/admin/people/${user.id}/channels/prove`, {
        proofId: changeId,
        code: await proofCodeSentTo(t, user.id, '+491705550162'),
      });
      const after = await t.services.store.channels.listOfUser(user.id);
      expect(after.map((channel) => [channel.key, channel.address])).toEqual([
        ['email', 'olga@example.com'],
        ['mobile', '+491705550162'],
      ]);
      // A new address, a new reference: a page holding the old one cannot send to it.
      expect(after.find((channel) => channel.key === 'mobile')?.id).not.toBe(reference);

      const removed = await admin.post(`/admin/people/${user.id}/channels/remove`, { key: 'mobile' });
      expect(removed.json()).toMatchObject({ error: 0, result: { changed: ['channels.mobile'] } });
      expect(await addressesOf(t, user.id)).toEqual([['email', 'olga@example.com', 'source']]);
      expect(await auditOf(t, user.id, 'channel.removed')).toMatchObject([
        { actor, details: { key: 'mobile', origin: 'console' } },
      ]);
    },
  );

  appTest('ten right codes at once make one channel', async ({ startApp }) => {
    const t = await startApp();
    const admin = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'pia@example.com' } });
    const started = await admin.post(`/admin/people/${user.id}/channels/proofs`, {
      key: 'personalEmail',
      address: 'pia.private@example.org',
    });
    const { proofId } = started.json<{ result: { proofId: string } }>().result;
    const code = await proofCodeSentTo(t, user.id, 'pia.private@example.org');
    // The agent's proof is not the person's: their channels page neither lists it nor ends it.
    const person = await t.services.store.users.findById(user.id);
    expect(await t.services.channelProofs.list(person!)).not.toContainEqual(
      expect.objectContaining({ state: 'pending' }),
    );
    await expect(
      t.services.channelProofs.prove({
        user: person!,
        actor: user.id,
        clientAddress: '198.51.100.7',
        proofId,
        code,
        origin: 'owner',
      }),
    ).rejects.toMatchObject({ errorNumber: 3 });
    expect((await t.services.store.channelProofs.findOfUser(user.id, proofId))?.triesLeft).toBe(
      t.services.config.channelRegistration.proofTries,
    );
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        admin.post(`/admin/people/${user.id}/channels/prove`, { proofId, code }),
      ),
    );
    expect(answers.filter((answer) => answer.json<{ error: number }>().error === 0)).toHaveLength(1);
    expect(await addressesOf(t, user.id)).toEqual([
      ['email', 'pia@example.com', 'source'],
      ['personalEmail', 'pia.private@example.org', 'source'],
    ]);
    expect(await auditOf(t, user.id, 'channel.registered')).toHaveLength(1);
    expect(
      (await outbox(t, user.id)).filter((message) => message.recipient === 'pia@example.com'),
    ).toHaveLength(1);
  });

  appTest(
    "a help-desk agent changes the channels of the users in their scope only; an auditor none; another source's user is refused with 409 naming the owner",
    async ({ startApp }) => {
      const t = await startApp();
      const { store } = t.services;
      const staff = newId(t.clock.now());
      await store.groups.create({ id: staff, name: 'Staff EU', priority: 0 });
      const inside = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'in@example.com' } });
      await store.groups.addMember(staff, inside.id);
      const outside = await t.createUser({ policy: CHANNEL_POLICY, channels: { email: 'out@example.com' } });
      const helper = await consoleAgent(t, BASE, 'helpdesk', true, ['--scope', 'Staff EU']);
      const auditor = await consoleAgent(t, BASE, 'auditor');

      // Outside the scope: answered as a user who does not exist, and nothing is sent or changed.
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
      expect(await addressesOf(t, outside.id)).toEqual([['email', 'out@example.com', 'source']]);
      expect(await addressesOf(t, inside.id)).toEqual([['email', 'in@example.com', 'source']]);
      expect(await outbox(t, outside.id)).toEqual([]);
      expect(await outbox(t, inside.id)).toEqual([]);
      expect(await store.channelProofs.listOfUser(outside.id)).toEqual([]);

      // Inside it: the same proof as an administrator's, audited with the agent.
      const started = await helper.post(`/admin/people/${inside.id}/channels/proofs`, {
        key: 'mobile',
        address: '+49 170 5550171',
      });
      const { proofId } = started.json<{ result: { proofId: string } }>().result;
      expect(
        (
          await helper.post(`/admin/people/${inside.id}/channels/prove`, {
            proofId,
            code: await proofCodeSentTo(t, inside.id, '+491705550171'),
          })
        ).json(),
      ).toMatchObject({ error: 0 });
      expect(await auditOf(t, inside.id, 'channel.registered')).toMatchObject([
        { actor: `console:${helper.username}` },
      ]);

      // A directory's or SCIM's user: their channels are their source's.
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
      expect(await addressesOf(t, outside.id)).toEqual([['email', 'out@example.com', 'source']]);
      expect(await outbox(t, outside.id)).toEqual([]);
      expect((await admin.get(`/admin/people/${outside.id}`)).json()).toMatchObject({
        result: {
          editable: { channels: false },
          channels: [{ key: 'email', origin: 'source', source: 'scim' }],
        },
      });
    },
  );
});
