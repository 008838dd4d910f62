import {
  POLICY_CATEGORY_SELF_SERVICE,
  splitChannelValue,
  type ChannelKey,
  type SendType,
} from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../crypto/keyed-hash.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { PREPARED_MARK } from '../../store/prepared-statements.js';
import { recordPostgresQueries } from '../../testing/recorded-sql.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { refusedPort, startHttpPeer, type HttpPeer } from '../../testing/http-peer.js';
import { startSmtpPeer, type SmtpPeer } from '../../testing/smtp-peer.js';
import { DOOR_STORE_KINDS, STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../../testing/test-app.js';

/** Delivery of codes through real protocol peers, configured only by settings. */
const CHANNEL = { enableECode: true, emergencyCodeDelivery: 'Channel', maxUnusedCodes: 50 };
const SCREEN = { enableECode: true, emergencyCodeDelivery: 'Display' };
const CODE = /\b([23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{10})\b/;
const VOICE_TEMPLATE = '<Response><Say language="{subject}">{message}</Say></Response>';

function channelsFor(tag: string): Partial<Record<ChannelKey, string>> {
  return {
    mobile: `+49 170 555${tag}`,
    email: `chris.${tag}@example.com`,
    personalTelephone: `+49 89 555${tag}`,
    twitter: '@chris_channel',
  };
}

async function signedIn(t: TestApp, options: Parameters<TestApp['createUser']>[0]) {
  const user = await t.createUser(options);
  const session = await t.signIn(user);
  const response = await t.call(`${API}/user/queryAvailableChannels`, bodies.channels(user.id), session);
  const map = response.json<{ result: Record<string, string> | null }>().result ?? {};
  const refs = Object.fromEntries(
    Object.entries(map).map(([key, value]) => [key, splitChannelValue(value).reference]),
  );
  return { user, session, refs };
}

const send = (
  t: TestApp,
  user: TestUser,
  session: SignedIn,
  channel: SendType,
  recipient: string,
  locale = 'en',
) =>
  t.call(`${API}/tempPass/createAndSend`, bodies.createAndSend(user.id, channel, recipient, locale), session);
const events = (t: TestApp, userId: string, event: string) =>
  t.services.store.audit.list({ userId, event, limit: 1000 });
const active = (t: TestApp, userId: string) => t.services.store.codes.countActive(userId, t.clock.now());

describe.each(DOOR_STORE_KINDS)('delivery through real peers on %s', (kind) => {
  let t: TestApp;
  let smtp: SmtpPeer;
  let gateway: HttpPeer;
  let tag = 1000;
  const nextTag = () => String((tag += 1));

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    gateway = await startHttpPeer();
    t = await createTestApp(kind, {
      DEA_SMTP_HOST: '127.0.0.1',
      DEA_SMTP_PORT: String(smtp.port),
      DEA_SMTP_SECURE: 'none',
      DEA_SMTP_FROM: 'Emergency Access <dea@example.com>',
      DEA_SMS_HTTP_URL: `${gateway.url}/sms`,
      DEA_SMS_HTTP_HEADERS: '{"Authorization":"Bearer sms-secret"}',
      DEA_VOICE_HTTP_URL: `${gateway.url}/voice`,
      DEA_VOICE_HTTP_CONTENT_TYPE: 'application/xml',
      DEA_VOICE_HTTP_BODY: VOICE_TEMPLATE,
      DEA_TWITTER_TOKEN: 'x-token',
      DEA_TWITTER_API_URL: gateway.url,
      // Long enough that a send which succeeds does so at its first attempt on a loaded machine
      // (at 400 ms an SMTP greeting under load took a second attempt), short enough for the cases
      // of a gateway that hangs or answers late (three attempts each) to end within the deadline.
      DEA_DELIVERY_TIMEOUT_MS: '1500',
      DEA_DELIVERY_RETRIES: '2',
      DEA_DELIVERY_DEADLINE_MS: '7000',
      // This suite sends from one client address to recurring recipients; their limits have their own suite.
      DEA_SEND_LIMIT_PER_ADDRESS: '10000',
      DEA_SEND_LIMIT_PER_RECIPIENT: '10000',
    });
  });
  afterAll(async () => {
    await t.close();
    await gateway.close();
    await smtp.close();
  });
  const answerGateway = (respond: Parameters<HttpPeer['answer']>[0]) => gateway.answer(respond);
  const okGateway = () =>
    answerGateway((request) =>
      request.url.startsWith('/2/users/by/username/')
        ? { status: 200, body: '{"data":{"id":"2244994945"}}' }
        : { status: 201, body: '{"data":{"dm_event_id":"17"}}' },
    );

  it("writes times in the user's own time zone, in their language", async () => {
    const tagged = nextTag();
    const { user, session, refs } = await signedIn(t, { policy: CHANNEL, channels: channelsFor(tagged) });
    await t.services.store.users.update(user.id, { timeZone: 'Asia/Tokyo' });
    expect((await send(t, user, session, 'smtp', refs.email ?? '', 'de')).json()).toMatchObject({ error: 0 });
    const mail = smtp.received.find((received) => received.to[0] === `chris.${tagged}@example.com`);
    // 09:15 UTC is 18:15 in Tokyo (UTC+9), as German writes the zone.
    expect(mail?.text).toMatch(/gültig bis 21\.11\.2026, 18:15 GMT\+9\./);
  });

  it('sends an e-mail over SMTP: localized subject, the code in text and HTML, audited without the code', async () => {
    const tagged = nextTag();
    const { user, session, refs } = await signedIn(t, { policy: CHANNEL, channels: channelsFor(tagged) });
    const response = await send(t, user, session, 'smtp', refs.email ?? '', 'de');
    expect(response.json()).toEqual({ error: 0, message: '', result: { to: 'c***@e***.com' } });
    const mail = smtp.received.find((received) => received.to[0] === `chris.${tagged}@example.com`);
    expect(mail?.subject).toBe('Ihr Notfallcode');
    expect(mail?.text).toMatch(
      /^Ihr Notfallcode lautet [2-9A-Z]{10}\. Er ist gültig bis 21\.11\.2026, 09:15 UTC\./,
    );
    const code = CODE.exec(mail?.text ?? '')?.[1] ?? '';
    expect(mail?.html).toContain(`<strong><code>${code}</code></strong>`);
    expect(mail?.html).toContain('<html lang="de">');
    expect(mail?.header('from')).toBe('Emergency Access <dea@example.com>');
    expect(mail?.header('message-id')).toMatch(/^<[0-9a-f-]{36}@example\.com>$/);
    const sent = await events(t, user.id, 'code.sent');
    expect(sent[0]?.details).toMatchObject({
      channel: 'smtp',
      provider: 'smtp',
      attempts: 1,
      to: 'c***@e***.com',
    });
    const audit = JSON.stringify(await t.services.store.audit.list({ userId: user.id, limit: 100 }));
    expect(audit).not.toContain(code);
    expect(audit).not.toContain(`chris.${tagged}@example.com`);
  });

  it('sends SMS, voice and X direct messages to the HTTP peer, each templated and escaped', async () => {
    okGateway();
    const tagged = nextTag();
    const { user, session, refs } = await signedIn(t, { policy: CHANNEL, channels: channelsFor(tagged) });
    const before = gateway.received.length;
    expect((await send(t, user, session, 'sms', refs.mobile ?? '')).json()).toMatchObject({ error: 0 });
    expect(
      (await send(t, user, session, 'TELEPHONE', refs.personalTelephone ?? '', 'de')).json(),
    ).toMatchObject({
      error: 0,
    });
    expect((await send(t, user, session, 'TWITTER', refs.twitter ?? '')).json()).toMatchObject({ error: 0 });
    const [sms, voice, lookup, dm] = gateway.received.slice(before);

    expect(sms?.url).toBe('/sms');
    expect(sms?.headers.authorization).toBe('Bearer sms-secret');
    expect(sms?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    const smsBody = JSON.parse(sms?.body ?? '') as { to: string; text: string };
    expect(smsBody.to).toBe(`+49170555${tagged}`);
    expect(smsBody.text).toMatch(/^Your emergency code is [2-9A-Z]{10}\./);

    expect(voice?.url).toBe('/voice');
    expect(voice?.headers['content-type']).toBe('application/xml');
    expect(voice?.body).toMatch(
      /^<Response><Say language="Ihr Notfallcode">Dies ist Ihr Notfallcode: ([2-9A-Z], ){9}[2-9A-Z]\. Noch einmal: /,
    );

    expect(lookup?.url).toBe('/2/users/by/username/chris_channel');
    expect(dm?.url).toBe('/2/dm_conversations/with/2244994945/messages');
    expect(dm?.headers.authorization).toBe('Bearer x-token');
    expect((JSON.parse(dm?.body ?? '') as { text: string }).text).toMatch(
      /^Your emergency code is [2-9A-Z]{10}\./,
    );

    const providers = (await events(t, user.id, 'code.sent')).map((entry) => entry.details.provider).sort();
    expect(providers).toEqual(['http-sms', 'http-telephone', 'twitter']);
  });

  const failures = [
    { name: 'a refused connection', attempts: 3, reason: 'network error ECONNREFUSED', refused: true },
    { name: 'HTTP 500 (retried)', attempts: 3, reason: 'HTTP 500', answer: { status: 500 } },
    { name: 'HTTP 400 (not retried)', attempts: 1, reason: 'HTTP 400', answer: { status: 400 } },
    { name: 'a gateway that hangs', attempts: 3, reason: 'timeout', answer: 'hang' as const, givenUp: true },
    {
      name: 'a slow gateway',
      attempts: 3,
      reason: 'timeout',
      answer: { status: 200, delayMs: 4000 },
      givenUp: true,
    },
  ];
  it.each(failures)('answers 150 on $name, audits it and invalidates the code', async (failure) => {
    const tagged = nextTag();
    const { user, session, refs } = await signedIn(t, { policy: CHANNEL, channels: channelsFor(tagged) });
    const original = t.services.config.delivery.http.sms?.url ?? '';
    const port = failure.refused ? await refusedPort() : 0;
    if (failure.answer) answerGateway(() => failure.answer);
    const before = gateway.received.length;
    const http = t.services.config.delivery.http;
    if (failure.refused && http.sms) http.sms.url = `http://127.0.0.1:${port}/sms`;
    try {
      const response = await send(t, user, session, 'sms', refs.mobile ?? '', 'de');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        error: 150,
        message:
          'Der Code konnte nicht zugestellt werden. Bitte versuchen Sie es später erneut oder wählen Sie einen anderen Kanal.',
        result: null,
      });
    } finally {
      if (http.sms) http.sms.url = original;
      okGateway();
    }
    if (!failure.refused) {
      const requests = gateway.received.slice(before);
      expect(requests).toHaveLength(failure.attempts);
      expect(new Set(requests.map((request) => request.headers['idempotency-key'])).size).toBe(1);
      // Bounded whatever the gateway does: the product gave up on each attempt it did not get an
      // answer to within DEA_DELIVERY_TIMEOUT_MS, rather than waiting for the gateway.
      if (failure.givenUp)
        await expect
          .poll(() => requests.filter((request) => request.abandoned === true))
          .toHaveLength(failure.attempts);
    }
    expect(await active(t, user.id)).toBe(0);
    const [failed] = await events(t, user.id, 'code.delivery_failed');
    expect(failed?.details).toMatchObject({
      channel: 'sms',
      channelKey: 'mobile',
      to: '+49 *** ***' + tagged.slice(-2),
      provider: 'http-sms',
      attempts: failure.attempts,
    });
    expect(String(failed?.details.reason)).toContain(failure.reason);
    const [issued] = await events(t, user.id, 'code.issued');
    expect(failed?.details.codeId).toBe(issued?.details.codeId);
    expect(await events(t, user.id, 'code.sent')).toHaveLength(0);
  });
});

describe.each(DOOR_STORE_KINDS)('send limits, switched-off types and phone prefixes on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      DEA_SEND_LIMIT_PER_ADDRESS: '1',
      DEA_DELIVERY_TWITTER: 'off',
      DEA_ALLOWED_PHONE_PREFIXES: '+49, +43',
    });
  });
  afterAll(() => t.close());

  it("answers a send past a limit with 140 and Retry-After, counted by the connection's address: a forwarded one is ignored without DEA_TRUST_PROXY", async () => {
    const first = await signedIn(t, { policy: CHANNEL, channels: { email: 'first@example.com' } });
    expect((await send(t, first.user, first.session, 'smtp', first.refs.email ?? '')).json()).toMatchObject({
      error: 0,
    });
    const second = await signedIn(t, { policy: CHANNEL, channels: { email: 'second@example.com' } });
    const refused = await t.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(second.user.id, 'smtp', second.refs.email ?? ''),
      second.session,
      { 'x-forwarded-for': '203.0.113.9' },
    );
    expect(refused.json()).toEqual({
      error: 140,
      message: 'Too many requests. Please try again in about 10 minutes.',
      result: { retryAfterSeconds: 600 },
    });
    expect(refused.headers['retry-after']).toBe('600');
  });

  it('does not list a switched-off type or a phone number outside the allowed prefixes', async () => {
    const { refs } = await signedIn(t, {
      policy: CHANNEL,
      channels: {
        twitter: '@chris_channel',
        email: 'off@example.com',
        mobile: '+1 202 5550143',
        personalMobile: '0043 664 5550143',
        telephone: '089 5550143',
      },
    });
    expect(Object.keys(refs).sort()).toEqual(['email', 'personalMobile']);
  });
});

// Both stores: its code on screen counts the statements asked of PostgreSQL.
describe.each(STORE_KINDS)('notices to the other channels on %s', (kind) => {
  let t: TestApp;
  let smtp: SmtpPeer;
  beforeAll(async () => {
    smtp = await startSmtpPeer();
    t = await createTestApp(kind, {
      DEA_NOTIFY_OTHER_CHANNELS: 'true',
      DEA_SMTP_HOST: '127.0.0.1',
      DEA_SMTP_PORT: String(smtp.port),
      DEA_SMTP_SECURE: 'none',
      DEA_SMTP_FROM: 'dea@example.com',
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  const outboxOf = async (userId: string) =>
    (await t.services.store.outbox.list(1000, userId)).map((message) =>
      openOutboxMessage([t.services.keys.seal], message),
    );

  it('after a send, tells every other channel where the code went, without the code', async () => {
    const channels = { mobile: '+49 170 5550112', email: 'notice.me@example.com', twitter: '@chris_channel' };
    const { user, session, refs } = await signedIn(t, { policy: CHANNEL, channels });
    expect((await send(t, user, session, 'sms', refs.mobile ?? '', 'de')).json()).toMatchObject({ error: 0 });
    await t.services.notices.settled();
    const outbox = await outboxOf(user.id);
    const code =
      CODE.exec(outbox.find((message) => message.recipient === channels.mobile)?.text ?? '')?.[1] ?? '';
    expect(code).toHaveLength(10);
    const dm = outbox.find((message) => message.recipient === channels.twitter);
    expect(dm?.subject).toBe('Ein Notfallcode wurde angefordert');
    expect(dm?.text).toMatch(
      /^Ein Notfallcode für Ihr Konto wurde um 21\.11\.2026, 09:00 UTC an \+49 \*\*\* \*\*\*12 gesendet\./,
    );
    expect(dm?.text).not.toContain(code);
    const mail = smtp.received.find((received) => received.to[0] === channels.email);
    expect(mail?.subject).toBe('Ein Notfallcode wurde angefordert');
    expect(mail?.text).toContain('+49 *** ***12');
    expect(mail?.raw).not.toContain(code);
    const notices = await events(t, user.id, 'notice.sent');
    expect(notices.map((entry) => entry.details.channel).sort()).toEqual(['TWITTER', 'smtp']);
    expect(outbox.filter((message) => message.recipient === channels.mobile)).toHaveLength(1);
  });

  it('a code on screen asks the store two statements on PostgreSQL: the session with the page policies, then the issue with the channels the notice tells', async () => {
    const { user, session } = await signedIn(t, {
      policy: SCREEN,
      channels: { email: 'two.reads@example.com', twitter: '@two_reads' },
    });
    const recorded = kind === 'postgres' ? recordPostgresQueries() : undefined;
    try {
      const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), session);
      expect(response.json()).toMatchObject({ error: 0 });
      await t.services.notices.settled();
    } finally {
      recorded?.stop();
    }
    expect((await events(t, user.id, 'notice.sent')).map((entry) => entry.details.channelKey).sort()).toEqual(
      ['email', 'twitter'],
    );
    // A policy changed between two requests counts at the next one: nothing is kept in between.
    const [group] = await t.services.store.groups.listOfUser(user.id);
    await t.services.store.groups.setPolicy(group?.id ?? '', POLICY_CATEGORY_SELF_SERVICE, {
      ...SCREEN,
      enableECode: false,
    });
    expect((await t.call(`${API}/tempPass/create`, bodies.create(user.id), session)).json()).toMatchObject({
      error: 3,
    });
    if (recorded === undefined) return;
    // The statements about this user or their session, prepared ones (the hot path's): no read of
    // the policies or the channels of their own.
    const sessionHash = sha256(session.sessionId);
    const about = recorded.queries.filter(
      (query) =>
        query.text.startsWith(PREPARED_MARK) &&
        (JSON.stringify(query.values).includes(user.id) ||
          JSON.stringify(query.values).includes(sessionHash)),
    );
    expect(about.map((query) => (query.text.includes('dea_issue_code') ? 'issue' : 'session'))).toEqual([
      'session',
      'issue',
    ]);
    expect(about[0]?.text).toContain('"policies"');
    expect(about[1]?.text).toContain('channels');
  });

  it('after a code shown on screen, tells every channel; a failing notice is audited and changes nothing', async () => {
    const { user, session } = await signedIn(t, {
      policy: SCREEN,
      channels: { email: 'bounce@example.com', twitter: '@screen_user' },
    });
    smtp.rejectRecipients(550);
    try {
      const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), session);
      expect(response.json()).toMatchObject({ error: 0 });
      await t.services.notices.settled();
    } finally {
      smtp.rejectRecipients(undefined);
    }
    const [dm] = await outboxOf(user.id);
    expect(dm?.text).toMatch(/^An emergency code for your account was issued and shown on screen at /);
    expect((await events(t, user.id, 'notice.sent'))[0]?.details).toMatchObject({ channel: 'TWITTER' });
    expect((await events(t, user.id, 'notice.failed'))[0]?.details).toMatchObject({
      channel: 'smtp',
      to: 'b***@e***.com',
      attempts: 1,
    });
  });
});
