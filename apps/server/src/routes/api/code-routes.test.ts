import {
  CreateAndSendResult,
  CreateCodeResult,
  Envelope,
  splitChannelValue,
  type ChannelKey,
  type SendType,
} from '@dea/contract';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHash } from '../../domain/codes/codes.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { DeliveryProvider } from '../../delivery/delivery.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { dumpStoreText } from '../../testing/store-dump.js';
import { DOOR_STORE_KINDS, STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../../testing/test-app.js';

const MINUTE = 60_000;
const SCREEN = { enableECode: true, emergencyCodeDelivery: 'Display' };
const CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel' };
const CHANNELS: Partial<Record<ChannelKey, string>> = {
  mobile: '+49 170 5550112',
  email: 'chris.channel@example.com',
  personalTelephone: '+49 89 5550178',
  twitter: '@chris_channel',
};

interface Envelope<T> {
  error: number;
  message: string;
  result: T;
}
type Created = Envelope<{ rows: { id: string; password: string }[] } | null>;

describe.each(DOOR_STORE_KINDS)('code calls on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  async function signedInUser(
    options: Parameters<TestApp['createUser']>[0] = {},
  ): Promise<{ user: TestUser; session: SignedIn }> {
    const user = await t.createUser(options);
    return { user, session: await t.signIn(user) };
  }
  const create = (user: TestUser, session: SignedIn, locale = 'en') =>
    t.call(`${API}/tempPass/create`, bodies.create(user.id, locale), session);
  const createAndSend = (
    user: TestUser,
    session: SignedIn,
    channel: SendType,
    recipient: string,
    locale = 'en',
  ) =>
    t.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(user.id, channel, recipient, locale),
      session,
    );
  const references = async (user: TestUser, session: SignedIn): Promise<Record<string, string>> => {
    const response = await t.call(`${API}/user/queryAvailableChannels`, bodies.channels(user.id), session);
    const map = response.json<Envelope<Record<string, string>>>().result;
    return Object.fromEntries(
      Object.entries(map).map(([key, value]) => [key, splitChannelValue(value).reference]),
    );
  };
  const events = async (userId: string, event: string) =>
    t.services.store.audit.list({ userId, event, limit: 1000 });
  const active = (userId: string) => t.services.store.codes.countActive(userId, t.clock.now());

  describe('POST tempPass/create', () => {
    it('issues one code under the policy, answers rows[0] with id and password, and audits it', async () => {
      const { user, session } = await signedInUser({
        policy: { ...SCREEN, codeLength: 12, codeAlphabet: 'ABCDEF2345' },
      });
      const response = await create(user, session);
      expect(response.statusCode).toBe(200);
      const body = response.json<Created>();
      expect(Value.Check(Envelope(CreateCodeResult), body)).toBe(true);
      expect(body.error).toBe(0);
      expect(body.result?.rows).toHaveLength(1);
      const row = body.result?.rows[0];
      expect(row?.password).toMatch(/^[A-F2-5]{12}$/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(await active(user.id)).toBe(1);

      const issued = await events(user.id, 'code.issued');
      expect(issued).toHaveLength(1);
      expect(issued[0]?.details).toMatchObject({ codeId: row?.id, channel: 'screen' });
      expect(JSON.stringify(issued)).not.toContain(row?.password);
    });

    it('answers only the fields asked for', async () => {
      const { user, session } = await signedInUser({ policy: SCREEN });
      const body = { ...bodies.create(user.id), return: ['password'] };
      const response = await t.call(`${API}/tempPass/create`, body, session);
      const rows = response.json<Created>().result?.rows;
      expect(Object.keys(rows?.[0] ?? {})).toEqual(['password']);
    });

    it('uses the default length and alphabet when the policy sets none, and every code differs', async () => {
      const { user, session } = await signedInUser({ policy: SCREEN });
      const codes = [];
      for (let index = 0; index < 5; index += 1) {
        codes.push((await create(user, session)).json<Created>().result?.rows[0]?.password);
      }
      for (const code of codes) expect(code).toMatch(/^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{10}$/);
      expect(new Set(codes).size).toBe(5);
    });

    it('stores a code only as a keyed hash: no column of any table holds it', async () => {
      const { user, session } = await signedInUser({ policy: SCREEN });
      const codes: string[] = [];
      for (let index = 0; index < 3; index += 1) {
        codes.push((await create(user, session)).json<Created>().result?.rows[0]?.password ?? '');
      }
      const dump = await dumpStoreText(t.testStore);
      expect(dump).toContain(user.id);
      for (const code of codes) {
        expect(code).toHaveLength(10);
        expect(dump).not.toContain(code);
        expect(dump.toLowerCase()).not.toContain(code.toLowerCase());
        // The stored value is the HMAC under the server key, which is not in the store.
        expect(dump).toContain(
          codeHash(t.services.keys.codeHash, user.id, code, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'),
        );
      }
      expect(dump).not.toContain(session.sessionId);
      expect(dump).not.toContain(session.xsrfToken);
      expect(dump).not.toContain(t.services.keys.codeHash.toString('base64'));
      expect(dump).not.toContain(t.services.keys.codeHash.toString('hex'));
    });

    it('refuses with 148 once the policy maximum of unused codes is held, auditing every refusal', async () => {
      const { user, session } = await signedInUser({ policy: { ...SCREEN, maxUnusedCodes: 2 } });
      expect((await create(user, session)).json()).toMatchObject({ error: 0 });
      expect((await create(user, session)).json()).toMatchObject({ error: 0 });
      const refused = await create(user, session);
      expect(refused.statusCode).toBe(200);
      // How many codes the user holds and when the next frees up, in the message and the result.
      expect(refused.json()).toEqual({
        error: 148,
        message:
          'You already hold 2 unused emergency codes, the most allowed at once. A new one can be requested in about 15 minutes, when the oldest expires.',
        result: { unusedCodes: 2, nextFreeAt: new Date(t.services.now() + 15 * 60_000).toISOString() },
      });
      expect((await create(user, session, 'de')).json<Created>().message).toMatch(/^Sie besitzen bereits/);
      expect(await active(user.id)).toBe(2);
      expect(await events(user.id, 'code.issued')).toHaveLength(2);
      const refusals = await events(user.id, 'code.refused');
      expect(refusals).toHaveLength(2);
      expect(refusals[0]?.details).toMatchObject({ reason: 'store-full' });
    });

    it('issues exactly 5 of 20 concurrent calls for a user with room for 5; the others get 148', async () => {
      const { user, session } = await signedInUser({ policy: { ...SCREEN, maxUnusedCodes: 5 } });
      const responses = await Promise.all(Array.from({ length: 20 }, () => create(user, session)));
      const errors = responses.map((response) => response.json<Created>().error);
      expect(responses.every((response) => response.statusCode === 200)).toBe(true);
      expect(errors.filter((error) => error === 0)).toHaveLength(5);
      expect(errors.filter((error) => error === 148)).toHaveLength(15);
      expect(await active(user.id)).toBe(5);
      expect(await events(user.id, 'code.issued')).toHaveLength(5);
      expect(await events(user.id, 'code.refused')).toHaveLength(15);
      const codes = responses
        .map((response) => response.json<Created>().result?.rows?.[0]?.password)
        .filter(Boolean);
      expect(new Set(codes).size).toBe(5);
    });

    it('stops counting a code after its validity: then a new one is issued', async () => {
      const { user, session } = await signedInUser({
        policy: { ...SCREEN, maxUnusedCodes: 1, codeValidityMinutes: 2 },
      });
      expect((await create(user, session)).json()).toMatchObject({ error: 0 });
      expect((await create(user, session)).json()).toMatchObject({ error: 148 });
      t.clock.advance(2 * MINUTE - 1);
      expect((await create(user, session)).json()).toMatchObject({ error: 148 });
      t.clock.advance(1);
      expect(await active(user.id)).toBe(0);
      expect((await create(user, session)).json()).toMatchObject({ error: 0 });
    });

    it('answers a refusal of the policy as error 3 with its message', async () => {
      const byChannel = await signedInUser({ policy: CHANNEL });
      expect((await create(byChannel.user, byChannel.session)).json()).toEqual({
        error: 3,
        message: 'Your emergency codes are delivered in another way.',
        result: null,
      });
      const disabled = await signedInUser({
        policy: { enableECode: false, emergencyCodeDelivery: 'Display' },
      });
      expect((await create(disabled.user, disabled.session)).json()).toEqual({
        error: 3,
        message: 'Emergency codes are not enabled for your account.',
        result: null,
      });
    });
  });

  describe('POST tempPass/createAndSend', () => {
    it('delivers a code to the referenced channel through the outbox, sealed, and answers the masked recipient', async () => {
      const { user, session } = await signedInUser({ policy: CHANNEL, channels: CHANNELS });
      const refs = await references(user, session);
      const response = await createAndSend(user, session, 'sms', refs.mobile ?? '');
      expect(response.statusCode).toBe(200);
      const body = response.json<unknown>();
      expect(Value.Check(Envelope(CreateAndSendResult), body)).toBe(true);
      expect(body).toEqual({ error: 0, message: '', result: { to: '+49 *** ***12' } });
      expect(await active(user.id)).toBe(1);

      const messages = (await t.services.store.outbox.list(1000)).filter(
        (message) => message.userId === user.id,
      );
      expect(messages).toHaveLength(1);
      const [message] = messages;
      if (message === undefined) throw new Error('no outbox message');
      expect(message.channelType).toBe('sms');
      const content = openOutboxMessage([t.services.keys.seal], message);
      expect(content.recipient).toBe('+49 170 5550112');
      expect(content.subject).toBe('Your emergency code');
      const code = /emergency code is ([2-9A-Z]{10})\./.exec(content.text)?.[1] ?? '';
      expect(code).toHaveLength(10);
      // The code is in the delivered message only: not in the answer, not in clear in the store.
      expect(response.body).not.toContain(code);
      expect(message.sealed).not.toContain(code);
      expect(message.sealed).not.toContain('5550112');
      const dump = await dumpStoreText(t.testStore);
      expect(dump).not.toContain(code);
      expect(dump).toContain(
        codeHash(t.services.keys.codeHash, user.id, code, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'),
      );

      const sent = await events(user.id, 'code.sent');
      expect(sent).toHaveLength(1);
      expect(sent[0]?.details).toMatchObject({
        channel: 'sms',
        channelKey: 'mobile',
        to: '+49 *** ***12',
        provider: 'outbox',
      });
      expect(await events(user.id, 'code.issued')).toHaveLength(1);
    });

    it('answers a reference that is not one of the channels with 130 and its message', async () => {
      const { user, session } = await signedInUser({ policy: CHANNEL, channels: CHANNELS });
      const response = await createAndSend(user, session, 'sms', 'not-a-reference');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        error: 130,
        message: 'This recipient is not one of your registered channels.',
        result: null,
      });
    });

    it('answers a failed delivery as 150 with its message in the language asked', async () => {
      const { user, session } = await signedInUser({ policy: CHANNEL, channels: CHANNELS });
      const refs = await references(user, session);
      const original = t.services.delivery;
      const failing: DeliveryProvider = {
        name: 'failing',
        deliver: () => Promise.resolve({ ok: false, transient: true, reason: 'gateway down' }),
      };
      try {
        t.services.delivery = () => failing;
        const response = await createAndSend(user, session, 'sms', refs.mobile ?? '', 'de');
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({
          error: 150,
          message:
            'Der Code konnte nicht zugestellt werden. Bitte versuchen Sie es später erneut oder wählen Sie einen anderen Kanal.',
          result: null,
        });
      } finally {
        t.services.delivery = original;
      }
    });
  });
});

describe.each(DOOR_STORE_KINDS)('the code limit setting on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { DEA_CODE_MAX_UNUSED: '3', DEA_CODE_LENGTH: '16' });
  });
  afterAll(() => t.close());

  it('DEA_CODE_MAX_UNUSED and DEA_CODE_LENGTH apply when the policy sets neither', async () => {
    const user = await t.createUser({ policy: SCREEN });
    const session = await t.signIn(user);
    const answers = [];
    for (let index = 0; index < 4; index += 1) {
      answers.push((await t.call(`${API}/tempPass/create`, bodies.create(user.id), session)).json<Created>());
    }
    expect(answers.map((answer) => answer.error)).toEqual([0, 0, 0, 148]);
    expect(answers[0]?.result?.rows[0]?.password).toHaveLength(16);
    const policy = await t.call(`${API}/user/getPolicy`, bodies.getPolicy(user.id), session);
    expect(policy.json()).toMatchObject({ result: { options: { maxUnusedCodes: 3, codeLength: 16 } } });
  });
});

// Both stores: two takings back of one code at once, audited once.
describe.each(STORE_KINDS)("taking back one's own code, and error 148 on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const create = (user: TestUser, session: SignedIn, locale = 'en') =>
    t.call(`${API}/tempPass/create`, bodies.create(user.id, locale), session);
  const revoke = (user: TestUser, session: SignedIn, codeId: string) =>
    t.call(`${API}/tempPass/revoke`, bodies.revoke(user.id, codeId), session);

  it("revokes the signed-in user's own unused code once, so its replacement fits under the limit", async () => {
    const user = await t.createUser({ policy: { ...SCREEN, maxUnusedCodes: 1 } });
    const session = await t.signIn(user);
    const first = (await create(user, session)).json<Created>().result?.rows[0];
    expect((await create(user, session)).json()).toMatchObject({ error: 148 });

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => revoke(user, session, first?.id ?? '')),
    );
    expect(
      answers.filter((answer) => answer.json<Envelope<{ revoked: boolean }>>().result.revoked),
    ).toHaveLength(1);
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.revoked' })).toMatchObject([
      { actor: user.id, details: { codeId: first?.id } },
    ]);
    expect((await create(user, session)).json()).toMatchObject({ error: 0 });
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
  });

  it("never revokes another user's code", async () => {
    const owner = await t.createUser({ policy: SCREEN });
    const other = await t.createUser({ policy: SCREEN });
    const code = (await create(owner, await t.signIn(owner))).json<Created>().result?.rows[0]?.id ?? '';
    const session = await t.signIn(other);
    expect((await revoke(other, session, code)).json()).toMatchObject({
      error: 0,
      result: { revoked: false },
    });
    expect(
      (await t.call(`${API}/tempPass/revoke`, bodies.revoke(owner.id, code), session)).json(),
    ).toMatchObject({
      error: 3,
    });
    expect(await t.services.store.codes.countActive(owner.id, t.clock.now())).toBe(1);
  });

  it("says in the user's language when a code slot frees up", async () => {
    const user = await t.createUser({ policy: { ...SCREEN, maxUnusedCodes: 1, codeValidityMinutes: 15 } });
    const session = await t.signIn(user);
    await create(user, session);
    t.clock.advance(5 * MINUTE + 20_000);
    const english = (await create(user, session)).json<Created>();
    expect(english).toMatchObject({ error: 148, message: expect.stringContaining('in about 10 minutes') });
    const german = (await create(user, session, 'de')).json<Created>();
    expect(german.message).toContain('in etwa 10 Minuten');
    const arabic = (await create(user, session, 'ar')).json<Created>();
    expect(arabic.message).toContain('دقائق');
  });
});
