import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp, TestUser } from '../../testing/test-app.js';
import { API } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';

const HOUR = 3_600_000;

/** The last code of eight digits sent to the address. */
async function codeSentTo(t: TestApp, userId: string, recipient: string): Promise<string> {
  const messages = await t.services.store.outbox.list(1000, userId);
  for (const message of messages) {
    const opened = openOutboxMessage([t.services.keys.seal], message);
    const code = /is (\d{8})/.exec(opened.text)?.[1];
    if (opened.recipient === recipient && code !== undefined) return code;
  }
  throw new Error(`no code sent to ${recipient}`);
}

const envelope = (response: LightMyRequestResponse) =>
  response.json<{ error: number; message: string; result: Record<string, unknown> | null }>();

/** The signed-in call with the registration cookie added, when there is one. */
function withRegistration(signedIn: SignedIn, token: string | undefined): SignedIn {
  if (token === undefined) return signedIn;
  return {
    ...signedIn,
    headers: {
      ...signedIn.headers,
      cookie: `${signedIn.headers.cookie}; ${REGISTRATION_COOKIE_NAME}=${token}`,
    },
  };
}

const registrationTokenOf = (response: LightMyRequestResponse): string | undefined =>
  response.cookies.find((cookie) => cookie.name === REGISTRATION_COOKIE_NAME)?.value;

async function addAndProve(t: TestApp, person: TestUser, signedIn: SignedIn, address: string) {
  const added = envelope(await t.call(`${API}/channels/add`, { key: 'personalEmail', address }, signedIn));
  expect(added.error).toBe(0);
  const code = await codeSentTo(t, person.id, address);
  return envelope(await t.call(`${API}/channels/prove`, { proofId: added.result?.proofId, code }, signedIn));
}

describe.each(STORE_KINDS)('the channels page and its strong sign-in, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('a password alone never opens the registration of channels', async ({ startApp }) => {
    const t = await startApp();
    const person = await t.createUser({ channels: { email: 'pat@example.com' } });
    const signedIn = await t.signIn(person);
    for (const [path, body] of [
      ['channels/list', {}],
      ['channels/add', { key: 'personalEmail', address: 'pat@example.org' }],
      ['channels/prove', { proofId: 'x', code: '12345678' }],
      ['channels/remove', { key: 'email' }],
    ] as const) {
      const answer = envelope(await t.call(`${API}/${path}`, body, signedIn));
      expect(answer, path).toMatchObject({ error: 3 });
      expect(answer.message, path).toMatch(/strong sign-in/);
    }
    // A made-up registration cookie is no session either, nor one of another person.
    const forged = envelope(
      await t.call(`${API}/channels/list`, {}, withRegistration(signedIn, 'x'.repeat(43))),
    );
    expect(forged.error).toBe(3);
    // And without the password's session there is no page at all.
    expect((await t.call(`${API}/channels/list`, {})).statusCode).toBe(403);
    expect(await t.services.store.outbox.list(10, person.id)).toEqual([]);
  });

  appTest(
    'a code sent to a proven channel opens it; the person adds and proves an address; one still cooling off opens nothing',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({ channels: { email: 'quinn@example.com' } });
      const signedIn = await t.signIn(person);
      const reference = (await t.services.store.channels.listOfUser(person.id))[0]!.id;
      const challenge = envelope(await t.call(`${API}/registration/challenge`, { reference }, signedIn));
      expect(challenge).toMatchObject({ error: 0, result: { to: expect.stringContaining('@') } });
      const wrong = envelope(
        await t.call(
          `${API}/registration/open`,
          { challengeId: challenge.result?.challengeId, code: '0000000' },
          signedIn,
        ),
      );
      expect(wrong.error).toBe(3);
      const code = await codeSentTo(t, person.id, 'quinn@example.com');
      const opened = await t.call(
        `${API}/registration/open`,
        { challengeId: challenge.result?.challengeId, code },
        signedIn,
      );
      expect(envelope(opened).error).toBe(0);
      const cookie = opened.cookies.find((entry) => entry.name === REGISTRATION_COOKIE_NAME);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dea/' });
      // Used once: the same code opens nothing again.
      const again = envelope(
        await t.call(
          `${API}/registration/open`,
          { challengeId: challenge.result?.challengeId, code },
          signedIn,
        ),
      );
      expect(again.error).toBe(3);

      const registering = withRegistration(signedIn, registrationTokenOf(opened));
      const proven = await addAndProve(t, person, registering, 'quinn.private@example.org');
      expect(proven).toMatchObject({
        error: 0,
        result: { channels: [{ key: 'personalEmail', origin: 'owner', usable: false, reason: 'cooling' }] },
      });
      const list = envelope(await t.call(`${API}/channels/list`, {}, registering));
      expect(list.result?.channels).toEqual([
        expect.objectContaining({ key: 'email', origin: 'source', usable: true }),
        expect.objectContaining({ key: 'personalEmail', origin: 'owner', usable: false }),
      ]);
      // The new channel, still cooling off, cannot open a registration session.
      const fresh = (await t.services.store.channels.listOfUser(person.id)).find(
        (channel) => channel.key === 'personalEmail',
      )!;
      expect(
        envelope(await t.call(`${API}/registration/challenge`, { reference: fresh.id }, signedIn)).error,
      ).toBe(130);
      // The session ends after DEA_REGISTRATION_SESSION_MINUTES.
      t.clock.advance(HOUR);
      const later = withRegistration(await t.signIn(person), registrationTokenOf(opened));
      expect(envelope(await t.call(`${API}/channels/list`, {}, later)).error).toBe(3);
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' })).map(
          (entry) => entry.details?.method,
        ),
      ).toEqual(['channel-code']);
    },
  );

  appTest(
    'a registration link of dea user registration-link opens it once, for its person only',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const other = await t.createUser();
      const user = (await t.services.store.users.findById(person.id))!;
      const printed = await t.dea(['user', 'registration-link', user.username]);
      expect(printed.code).toBe(0);
      const link = /#link=([\w-]+)/.exec(printed.out)?.[1];
      expect(printed.out).toContain('http://localhost:8080/dea/channels/#link=');

      const othersTry = envelope(await t.call(`${API}/registration/open`, { link }, await t.signIn(other)));
      expect(othersTry.error).toBe(3);
      const signedIn = await t.signIn(person);
      const [first, second] = await Promise.all([
        t.call(`${API}/registration/open`, { link }, signedIn),
        t.call(`${API}/registration/open`, { link }, signedIn),
      ]);
      const errors = [envelope(first).error, envelope(second).error].sort();
      expect(errors).toEqual([0, 3]);
      const opened = envelope(first).error === 0 ? first : second;
      const proven = await addAndProve(
        t,
        person,
        withRegistration(signedIn, registrationTokenOf(opened)),
        'rae@example.org',
      );
      expect(proven.error).toBe(0);
      const undo = envelope(await t.call(`${API}/channels/undo`, { token: 'y'.repeat(43) }));
      expect(undo.error).toBe(3);
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' })).length +
          (await t.services.store.audit.list({ userId: other.id, event: 'registration.refused' })).length,
      ).toBe(2);
    },
  );

  appTest(
    'the help desk makes the same link, with a fresh passkey, as the agent; it opens the registration once',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const agent = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk');
      const made = (await agent.post(`/users/${person.id}/registration-link`)).json<{
        error: number;
        result: { url: string };
      }>();
      expect(made.error).toBe(0);
      expect(made.result.url).toMatch(/^http:\/\/localhost:8080\/dea\/channels\/#link=/);
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.link_issued' }),
      ).toMatchObject([{ actor: `console:${agent.username}` }]);
      const link = made.result.url.split('#link=')[1];
      const signedIn = await t.signIn(person);
      expect(envelope(await t.call(`${API}/registration/open`, { link }, signedIn)).error).toBe(0);
      expect(envelope(await t.call(`${API}/registration/open`, { link }, signedIn)).error).toBe(3);
      // Without a fresh passkey check the agent gets no link.
      const stale = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk', false);
      expect((await stale.post(`/users/${person.id}/registration-link`)).statusCode).toBe(403);
    },
  );

  /** A registration session opened with a link (as the help desk's), for the page's own calls. */
  async function registeringAs(t: TestApp, person: TestUser): Promise<SignedIn> {
    const user = (await t.services.store.users.findById(person.id))!;
    const { url } = await t.services.registrationSignIn.issueLink(user, 'test');
    const signedIn = await t.signIn(person);
    const opened = await t.call(`${API}/registration/open`, { link: url.split('#link=')[1] }, signedIn);
    expect(envelope(opened).error).toBe(0);
    return withRegistration(signedIn, registrationTokenOf(opened));
  }

  appTest(
    "the page learns the strong sign-ins it may offer: the proven channels a code may go to, the identity provider's, and whether a session is open",
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({ channels: { email: 'sam@example.com' } });
      const signedIn = await t.signIn(person);
      const ways = envelope(await t.call(`${API}/registration/ways`, {}, signedIn));
      expect(ways).toMatchObject({
        error: 0,
        result: {
          open: false,
          oidc: false,
          channels: [{ key: 'email', type: 'smtp', to: expect.stringContaining('***') }],
        },
      });
      expect(JSON.stringify(ways.result)).not.toContain('sam@example.com');
      // A channel still cooling off is not offered (challenge would refuse it).
      const registering = await registeringAs(t, person);
      expect(envelope(await t.call(`${API}/registration/ways`, {}, registering)).result).toMatchObject({
        open: true,
        expiresAt: expect.any(String),
      });
      expect((await addAndProve(t, person, registering, 'sam.home@example.org')).error).toBe(0);
      const after = envelope(await t.call(`${API}/registration/ways`, {}, signedIn));
      // oxlint-disable-next-line no-unsafe-optional-chaining -- a missing list fails the test
      expect((after.result?.channels as { key: string }[]).map((channel) => channel.key)).toEqual(['email']);
      // Without the password's session: 403, as every call of the page.
      expect((await t.call(`${API}/registration/ways`, {})).statusCode).toBe(403);
    },
  );

  appTest(
    "the list names each source's channel's source, the group's rules for new ones, and a proof's tries left",
    async ({ startApp }) => {
      const t = await startApp({ DEA_CHANNEL_PROOF_TRIES: '3' });
      const person = await t.createUser({ channels: { mobile: '+491701234567' } });
      const registering = await registeringAs(t, person);
      const added = envelope(
        await t.call(
          `${API}/channels/add`,
          { key: 'personalEmail', address: 'tia@example.org' },
          registering,
        ),
      );
      expect(added.error).toBe(0);
      await t.call(
        `${API}/channels/prove`,
        { proofId: added.result?.proofId, code: '00000000' },
        registering,
      );
      const list = envelope(await t.call(`${API}/channels/list`, {}, registering));
      expect(list.result).toEqual({
        channels: [
          expect.objectContaining({ key: 'mobile', origin: 'source', source: 'local', usable: true }),
          expect.objectContaining({ key: 'personalEmail', state: 'pending', triesLeft: 2 }),
        ],
        policy: { types: ['sms', 'smtp', 'TELEPHONE', 'TWITTER'], max: 4, coolingHours: 24 },
      });
    },
  );

  appTest(
    "a test message goes to the person's channel without a code, audited, and only within the send limits, however many ask at once",
    async ({ startApp }) => {
      const t = await startApp({ DEA_SEND_LIMIT_PER_RECIPIENT: '3' });
      const person = await t.createUser({ channels: { email: 'uma@example.com' } });
      const registering = await registeringAs(t, person);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.call(`${API}/channels/test`, { key: 'email', locale: 'de' }, registering),
        ),
      );
      const errors = answers.map((answer) => envelope(answer).error).sort((a, b) => a - b);
      expect(errors).toEqual([0, 0, 0, 140, 140, 140, 140, 140]);
      const sent = (await t.services.store.outbox.list(100, person.id)).map((message) =>
        openOutboxMessage([t.services.keys.seal], message),
      );
      expect(sent).toHaveLength(3);
      for (const message of sent) {
        expect(message.recipient).toBe('uma@example.com');
        expect(message.subject).toBe('Testnachricht von Emergency Access');
        expect(message.text).not.toMatch(/\d{6}/);
      }
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'channel.test_sent' }),
      ).toHaveLength(3);
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'channel.test_refused' })).map(
          (entry) => entry.details?.reason,
        ),
      ).toEqual(Array(5).fill('rate-limit'));
      // A key the person has no channel of, and a password alone, send nothing.
      expect(envelope(await t.call(`${API}/channels/test`, { key: 'mobile' }, registering)).error).toBe(130);
      expect(
        envelope(await t.call(`${API}/channels/test`, { key: 'email' }, await t.signIn(person))).error,
      ).toBe(3);
      expect(await t.services.store.outbox.list(100, person.id)).toHaveLength(3);
    },
  );
});
