import { type ChannelKey, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { DeliveryProvider } from '../../delivery/delivery.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../../testing/stores.js';
import { composedDomain } from '../../testing/composed-domain.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const MINUTE = 60_000;
const CLIENT = '198.51.100.7';
const SIGN_IN_NEEDED = { errorNumber: 3, textKey: 'error.registrationSignInNeeded' };

/**
 * The registration's sign-in over the test's store, composed as the server composes it, on a
 * clock the test moves: people with channels from their source, codes read from the outbox.
 */
async function signInOn(store: Store, settings: Record<string, string> = {}) {
  const { services, clock } = await composedDomain(store, settings, T0);
  const signIn = services.registrationSignIn;

  /** Someone signed in with their password, with these channels from their source. */
  async function person(channels: Partial<Record<ChannelKey, string>> = { email: 'quinn@example.com' }) {
    const id = newId(clock.now());
    await store.users.create({
      id,
      username: usernameOrThrow(`reg-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Quinn Register',
      locale: 'en',
      createdAt: clock.now(),
    });
    const refs: Partial<Record<ChannelKey, string>> = {};
    for (const [key, address] of Object.entries(channels)) {
      refs[key as ChannelKey] = newId(clock.now());
      await store.channels.set({
        id: refs[key as ChannelKey]!,
        userId: id,
        key: key as ChannelKey,
        address,
        createdAt: clock.now(),
      });
    }
    const user: User = (await store.users.findById(id))!;
    return { user, clientAddress: CLIENT, refs };
  }

  /** The code of eight digits last sent to the address. */
  async function codeSentTo(userId: string, recipient: string): Promise<string> {
    const sent = (await store.outbox.list(100, userId))
      .map((message) => openOutboxMessage([TEST_STORE_KEYS.seal], message))
      .find((message) => message.recipient === recipient);
    const code = /\b(\d{8})\b/.exec(sent?.text ?? '')?.[1];
    if (code === undefined) throw new Error(`no code sent to ${recipient}`);
    return code;
  }

  const refusals = async (userId: string) =>
    (await store.audit.list({ userId, event: 'registration.refused', limit: 100 }))
      .map((entry) => entry.details)
      .reverse();
  const tokenOf = (url: string) => url.split('#link=')[1]!;

  return { services, clock, signIn, person, codeSentTo, refusals, tokenOf };
}

describe.each(STORE_KINDS)('the strong sign-in that opens the registration, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a code sent to a usable channel, typed back, opens a session for the set minutes; the code is in no entry',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store);
      const quinn = await d.person();
      const challenge = await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      expect(challenge).toEqual({
        challengeId: expect.any(String),
        to: 'q***@e***.com',
        expiresAt: T0 + 15 * MINUTE,
      });
      const code = await d.codeSentTo(quinn.user.id, 'quinn@example.com');
      const opened = await d.signIn.openWithCode({ ...quinn, challengeId: challenge.challengeId, code });
      expect(opened).toEqual({ token: expect.any(String), expiresAt: T0 + 15 * MINUTE, device: undefined });
      expect(
        await store.audit.list({ userId: quinn.user.id, event: 'registration.challenge_sent' }),
      ).toMatchObject([
        {
          actor: quinn.user.id,
          details: {
            channelKey: 'email',
            channel: 'smtp',
            to: 'q***@e***.com',
            challengeId: challenge.challengeId,
          },
        },
      ]);
      expect(
        (await store.audit.list({ userId: quinn.user.id, event: 'registration.opened' }))[0]?.details,
      ).toMatchObject({ method: 'channel-code', sessionId: challenge.challengeId });
      const trail = JSON.stringify(await store.audit.list({ userId: quinn.user.id, limit: 100 }));
      expect(trail).not.toContain(code);
      expect(trail).not.toContain(opened.token);

      d.clock.advance(15 * MINUTE - 1);
      await expect(d.signIn.require(quinn.user, opened.token)).resolves.toEqual({
        method: 'channel-code',
        expiresAt: T0 + 15 * MINUTE,
      });
      d.clock.advance(1);
      await expect(d.signIn.require(quinn.user, opened.token)).rejects.toMatchObject(SIGN_IN_NEEDED);
    },
  );

  storeTest.concurrent(
    'a code typed with spaces or dashes counts; once used it opens nothing again, nor for another person',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store);
      const quinn = await d.person();
      const other = await d.person({ email: 'other@example.com' });
      const { challengeId } = await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      const code = await d.codeSentTo(quinn.user.id, 'quinn@example.com');
      await expect(d.signIn.openWithCode({ ...other, challengeId, code })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      const spaced = `${code.slice(0, 4)} - ${code.slice(4)}`;
      await expect(d.signIn.openWithCode({ ...quinn, challengeId, code: spaced })).resolves.toMatchObject({
        token: expect.any(String),
      });
      await expect(d.signIn.openWithCode({ ...quinn, challengeId, code })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      expect((await d.refusals(other.user.id)).map((details) => details.reason)).toEqual(['unknown']);
      expect((await d.refusals(quinn.user.id)).map((details) => details.reason)).toEqual(['unknown']);
    },
  );

  storeTest.concurrent(
    'each wrong code takes a try; with the tries spent the right code opens nothing',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store, { DEA_CHANNEL_PROOF_TRIES: '3' });
      const quinn = await d.person();
      const { challengeId } = await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      const code = await d.codeSentTo(quinn.user.id, 'quinn@example.com');
      for (let n = 0; n < 3; n += 1)
        await expect(
          d.signIn.openWithCode({ ...quinn, challengeId, code: '00000000' }),
        ).rejects.toMatchObject(SIGN_IN_NEEDED);
      await expect(d.signIn.openWithCode({ ...quinn, challengeId, code })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      expect(await d.refusals(quinn.user.id)).toEqual([
        { method: 'channel-code', reason: 'wrong-code', challengeId, triesLeft: 2 },
        { method: 'channel-code', reason: 'wrong-code', challengeId, triesLeft: 1 },
        { method: 'channel-code', reason: 'wrong-code', challengeId, triesLeft: 0 },
        { method: 'channel-code', reason: 'no-tries', challengeId },
      ]);
    },
  );

  storeTest.concurrent(
    'a code opens only before its challenge expires',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store, { DEA_CHANNEL_PROOF_MINUTES: '10' });
      const quinn = await d.person();
      const first = await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      const late = await d.codeSentTo(quinn.user.id, 'quinn@example.com');
      d.clock.advance(10 * MINUTE);
      await expect(
        d.signIn.openWithCode({ ...quinn, challengeId: first.challengeId, code: late }),
      ).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect((await d.refusals(quinn.user.id)).map((details) => details.reason)).toEqual(['expired']);
      const second = await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      const code = await d.codeSentTo(quinn.user.id, 'quinn@example.com');
      d.clock.advance(10 * MINUTE - 1);
      await expect(
        d.signIn.openWithCode({ ...quinn, challengeId: second.challengeId, code }),
      ).resolves.toMatchObject({ token: expect.any(String) });
    },
  );

  storeTest.concurrent(
    "a channel that is not the person's, still cooling off or switched off gets no code: 130, audited, nothing sent",
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store, { DEA_DELIVERY_TWITTER: 'off' });
      const quinn = await d.person({ email: 'quinn@example.com', twitter: '@quinn' });
      const other = await d.person({ email: 'other@example.com' });
      await store.channels.setProven({
        id: `fresh-${kind}`,
        userId: quinn.user.id,
        key: 'personalEmail',
        address: 'quinn.home@example.org',
        at: T0,
      });
      for (const reference of [other.refs.email!, 'no-such-channel', `fresh-${kind}`, quinn.refs.twitter!])
        await expect(d.signIn.challenge({ ...quinn, reference })).rejects.toMatchObject({ errorNumber: 130 });
      expect(await d.refusals(quinn.user.id)).toEqual([
        { method: 'channel-code', reason: 'unknown-recipient' },
        { method: 'channel-code', reason: 'unknown-recipient' },
        {
          method: 'channel-code',
          reason: 'unusable-channel',
          channelKey: 'personalEmail',
          to: 'q***@e***.org',
          cause: 'cooling',
        },
        {
          method: 'channel-code',
          reason: 'unusable-channel',
          channelKey: 'twitter',
          to: '@qu***',
          cause: 'channel-type-disabled',
        },
      ]);
      expect(await store.outbox.list(100, quinn.user.id)).toEqual([]);
      // The page offers only the channel a code may go to.
      expect(await d.signIn.channelsForChallenge(quinn.user)).toEqual([
        { reference: quinn.refs.email, key: 'email', type: 'smtp', to: 'q***@e***.com' },
      ]);
    },
  );

  storeTest.concurrent(
    'codes of the sign-in are sent within the send limits: one past the recipient limit is refused with 140 and sends nothing',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store, { DEA_SEND_LIMIT_PER_RECIPIENT: '2' });
      const quinn = await d.person();
      await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      await d.signIn.challenge({ ...quinn, reference: quinn.refs.email! });
      await expect(d.signIn.challenge({ ...quinn, reference: quinn.refs.email! })).rejects.toMatchObject({
        errorNumber: 140,
        result: { retryAfterSeconds: 3600 },
      });
      expect(await store.outbox.list(100, quinn.user.id)).toHaveLength(2);
      expect((await d.refusals(quinn.user.id))[0]).toEqual({
        method: 'channel-code',
        reason: 'rate-limit',
        channelKey: 'email',
        limit: 'recipient',
        retryAfterSeconds: 3600,
      });
    },
  );

  storeTest.concurrent(
    'a code that could not be delivered is refused with 150 and its challenge opens nothing',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store);
      const quinn = await d.person();
      const failing: DeliveryProvider = {
        name: 'failing',
        deliver: () => Promise.resolve({ ok: false, transient: false, reason: 'HTTP 400' }),
      };
      d.services.delivery = () => failing;
      await expect(d.signIn.challenge({ ...quinn, reference: quinn.refs.email! })).rejects.toMatchObject({
        errorNumber: 150,
      });
      expect(await d.refusals(quinn.user.id)).toEqual([
        { method: 'channel-code', reason: 'delivery-failed', channelKey: 'email', cause: 'HTTP 400' },
      ]);
      expect(await store.audit.list({ userId: quinn.user.id, event: 'registration.challenge_sent' })).toEqual(
        [],
      );
    },
  );

  storeTest.concurrent(
    'a registration link opens one session for its own person, once, and only before it expires',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store, { DEA_REGISTRATION_LINK_HOURS: '2' });
      const rae = await d.person({});
      const other = await d.person({});
      const made = await d.signIn.issueLink(rae.user, 'console:desk');
      expect(made).toEqual({
        url: expect.stringMatching(/^http:\/\/localhost:8080\/dea\/channels\/#link=[\w-]{43}$/),
        expiresAt: T0 + 2 * 60 * MINUTE,
      });
      expect(
        await store.audit.list({ userId: rae.user.id, event: 'registration.link_issued' }),
      ).toMatchObject([
        {
          actor: 'console:desk',
          details: { expiresAt: new Date(T0 + 2 * 60 * MINUTE).toISOString(), earlierRevoked: 0 },
        },
      ]);
      const link = d.tokenOf(made.url);
      expect(JSON.stringify(await store.audit.list({ userId: rae.user.id, limit: 100 }))).not.toContain(link);
      await expect(d.signIn.openWithLink({ ...other, link })).rejects.toMatchObject(SIGN_IN_NEEDED);
      await expect(d.signIn.openWithLink({ ...rae, link })).resolves.toMatchObject({
        token: expect.any(String),
      });
      await expect(d.signIn.openWithLink({ ...rae, link })).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await d.refusals(other.user.id)).toEqual([{ method: 'link', reason: 'link-unusable' }]);

      const late = d.tokenOf((await d.signIn.issueLink(rae.user, 'cli')).url);
      d.clock.advance(2 * 60 * MINUTE);
      await expect(d.signIn.openWithLink({ ...rae, link: late })).rejects.toMatchObject(SIGN_IN_NEEDED);
      const inTime = d.tokenOf((await d.signIn.issueLink(rae.user, 'cli')).url);
      d.clock.advance(2 * 60 * MINUTE - 1);
      await expect(d.signIn.openWithLink({ ...rae, link: inTime })).resolves.toMatchObject({
        token: expect.any(String),
      });
    },
  );

  storeTest.concurrent(
    'of two openings of one link at once, one opens a session',
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store);
      const rae = await d.person({});
      const link = d.tokenOf((await d.signIn.issueLink(rae.user, 'cli')).url);
      const outcomes = await Promise.allSettled([1, 2].map(() => d.signIn.openWithLink({ ...rae, link })));
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(await store.audit.list({ userId: rae.user.id, event: 'registration.opened' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "a session's token is good for its own person only",
    async ({ testStore: { store }, expect }) => {
      const d = await signInOn(store);
      const rae = await d.person({});
      const other = await d.person({});
      const { token } = await d.signIn.openWithLink({
        ...rae,
        link: d.tokenOf((await d.signIn.issueLink(rae.user, 'cli')).url),
      });
      await expect(d.signIn.require(rae.user, token)).resolves.toMatchObject({ method: 'link' });
      await expect(d.signIn.require(other.user, token)).rejects.toMatchObject(SIGN_IN_NEEDED);
      for (const wrong of [undefined, '', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`])
        await expect(d.signIn.require(rae.user, wrong)).rejects.toMatchObject(SIGN_IN_NEEDED);
    },
  );
});
