import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp, TestUser } from '../../testing/test-app.js';
import { API } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';

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

describe.each(DOOR_STORE_KINDS)('the channels page and its strong sign-in, on %s', (kind) => {
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
      ['channels/test', { key: 'email' }],
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
    // A made-up undo token undoes nothing.
    expect(envelope(await t.call(`${API}/channels/undo`, { token: 'y'.repeat(43) })).error).toBe(3);
    expect(await t.services.store.outbox.list(10, person.id)).toEqual([]);
  });

  appTest(
    'a code sent to a proven channel, typed back, sets the registration cookie (HTTP-only, SameSite Strict, under /dea/) that the page then carries',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({ channels: { email: 'quinn@example.com' } });
      const signedIn = await t.signIn(person);
      const reference = (await t.services.store.channels.listOfUser(person.id))[0]!.id;
      const challenge = envelope(await t.call(`${API}/registration/challenge`, { reference }, signedIn));
      expect(challenge).toMatchObject({ error: 0, result: { to: 'q***@e***.com' } });
      const code = await codeSentTo(t, person.id, 'quinn@example.com');
      const opened = await t.call(
        `${API}/registration/open`,
        { challengeId: challenge.result?.challengeId, code },
        signedIn,
      );
      expect(envelope(opened).error).toBe(0);
      const cookie = opened.cookies.find((entry) => entry.name === REGISTRATION_COOKIE_NAME);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dea/' });
      const list = envelope(
        await t.call(`${API}/channels/list`, {}, withRegistration(signedIn, registrationTokenOf(opened))),
      );
      expect(list.result?.channels).toEqual([
        expect.objectContaining({ key: 'email', origin: 'source', usable: true }),
      ]);
      // A channel the person does not have answers 130.
      expect(
        envelope(await t.call(`${API}/registration/challenge`, { reference: 'no-such' }, signedIn)).error,
      ).toBe(130);
    },
  );

  appTest(
    'dea user registration-link prints the link, which opens the registration once',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const user = (await t.services.store.users.findById(person.id))!;
      const printed = await t.dea(['user', 'registration-link', user.username]);
      expect(printed.code).toBe(0);
      const link = /#link=([\w-]+)/.exec(printed.out)?.[1];
      expect(printed.out).toContain('http://localhost:8080/dea/channels/#link=');

      const signedIn = await t.signIn(person);
      expect(envelope(await t.call(`${API}/registration/open`, { link }, signedIn)).error).toBe(0);
      expect(envelope(await t.call(`${API}/registration/open`, { link }, signedIn)).error).toBe(3);
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
      const registering = await registeringAs(t, person);
      expect(envelope(await t.call(`${API}/registration/ways`, {}, registering)).result).toMatchObject({
        open: true,
        expiresAt: expect.any(String),
      });
      // Without the password's session: 403, as every call of the page.
      expect((await t.call(`${API}/registration/ways`, {})).statusCode).toBe(403);
    },
  );

  appTest(
    "the list answers the person's channels and the group's rules for new ones",
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({ channels: { mobile: '+491701234567' } });
      const list = envelope(await t.call(`${API}/channels/list`, {}, await registeringAs(t, person)));
      expect(list.result).toEqual({
        channels: [
          expect.objectContaining({ key: 'mobile', origin: 'source', source: 'local', usable: true }),
        ],
        policy: { types: ['sms', 'smtp', 'TELEPHONE', 'TWITTER'], max: 4, coolingHours: 24 },
      });
    },
  );

  appTest(
    'a test message answers where it went, 140 past the send limits with Retry-After, 130 for a key without a channel',
    async ({ startApp }) => {
      const t = await startApp({ DEA_SEND_LIMIT_PER_RECIPIENT: '1' });
      const person = await t.createUser({ channels: { email: 'uma@example.com' } });
      const registering = await registeringAs(t, person);
      expect(envelope(await t.call(`${API}/channels/test`, { key: 'email' }, registering))).toMatchObject({
        error: 0,
        result: { to: 'u***@e***.com' },
      });
      const limited = await t.call(`${API}/channels/test`, { key: 'email' }, registering);
      expect(envelope(limited)).toMatchObject({ error: 140, result: { retryAfterSeconds: 3600 } });
      expect(limited.headers['retry-after']).toBe('3600');
      expect(envelope(await t.call(`${API}/channels/test`, { key: 'mobile' }, registering)).error).toBe(130);
    },
  );
});
