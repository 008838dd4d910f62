import { readFileSync } from 'node:fs';
import { usernameOrThrow } from '@dea/contract';
import { describe, type TestContext } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { type ProviderPerson, startOidcProvider } from '../../testing/oidc-provider.js';
import { refusedPort } from '../../testing/http-peer.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { testClock } from '../../testing/test-app.js';
import { RememberedDevices } from '../page/remembered-devices.js';
import {
  REGISTRATION_OIDC_FLOW_MS,
  RegistrationOidc,
  unlinkRegistrationProvider,
} from './registration-oidc.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const MINUTE = 60_000;
const CLIENT = '198.51.100.7';
const CHANNELS_URL = 'http://dea.test/dea/channels/';
const KEY = Buffer.alloc(32, 4);
const TWO_FACTORS = { groups: [], amr: ['pwd', 'otp'] };
const SIGN_IN_NEEDED = { errorNumber: 3, textKey: 'error.registrationSignInNeeded' };

/**
 * The provider's sign-in for registration over the test's store, with a real OpenID provider of the
 * test's own (its logins on the test's clock, closed when the test ends); `through` sends a person signed in with their password to the
 * provider as `login` and back, and answers what `finish` does with the answer.
 */
async function withProvider(store: Store, onTestFinished: TestContext['onTestFinished'], issuer?: string) {
  const provider = await startOidcProvider(new URL('/dea/api/registration/oidc/callback', CHANNELS_URL).href);
  onTestFinished(() => provider.close());
  const clock = testClock(T0);
  provider.clock = clock.now;
  const warnings: string[] = [];
  const oidc = new RegistrationOidc({
    store,
    hashKeys: [KEY],
    oidc: {
      issuer: new URL(issuer ?? provider.issuer),
      clientId: provider.clientId,
      clientSecret: readFileSync(provider.clientSecretFile, 'utf8').trim(),
      usernameClaim: 'preferred_username',
      mfaAcrValues: ['gold'],
      insecureLoopback: true,
    },
    config: { channelRegistration: { channelsUrl: CHANNELS_URL, registrationSessionMs: 15 * MINUTE } },
    rememberedDevices: new RememberedDevices({ store, hashKeys: [KEY], now: clock.now }),
    now: clock.now,
    warn: (message) => warnings.push(message),
  });

  async function person(username?: string): Promise<{ user: User; clientAddress: string }> {
    const id = newId(T0);
    await store.users.create({
      id,
      username: usernameOrThrow(username ?? `oidc-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Alice Provider',
      locale: 'en',
      createdAt: T0,
    });
    return { user: (await store.users.findById(id))!, clientAddress: CLIENT };
  }

  async function through(
    signedIn: { user: User; clientAddress: string },
    login: string,
    as?: ProviderPerson,
  ) {
    if (as !== undefined) provider.people.set(login, as);
    const back = await provider.signIn(await oidc.start(signedIn), login);
    return oidc.finish({ ...signedIn, query: back.search });
  }

  const refusals = async (userId: string) =>
    (await store.audit.list({ userId, event: 'registration.refused', limit: 100 }))
      .map((entry) => entry.details)
      .reverse();
  const opened = (userId: string) => store.audit.list({ userId, event: 'registration.opened', limit: 100 });

  return { provider, clock, oidc, warnings, person, through, refusals, opened };
}

describe.each(STORE_KINDS)("the identity provider's sign-in for registration, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the same person with a second factor opens a session for its minutes, linked by issuer and subject',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      const opened = await d.through(alice, alice.user.username, TWO_FACTORS);
      expect(opened).toEqual({ token: expect.any(String), expiresAt: T0 + 15 * MINUTE, device: undefined });
      const tokenHash = keyedHash(KEY, 'registration-session', opened.token);
      expect(await store.registration.findOpen(alice.user.id, [tokenHash], T0)).toMatchObject({
        method: 'oidc',
      });
      expect(await d.opened(alice.user.id)).toMatchObject([
        {
          actor: alice.user.id,
          clientAddress: CLIENT,
          details: { method: 'oidc', issuer: d.provider.issuer, subject: alice.user.username, linked: true },
        },
      ]);
      expect(await store.registrationOidcLinks.subjectOf(alice.user.id, d.provider.issuer)).toBe(
        alice.user.username,
      );
    },
  );

  storeTest.concurrent(
    'the person is sent to the provider for a new login, with PKCE, a state and a nonce of their own',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      const first = new URL(await d.oidc.start(alice));
      expect(Object.fromEntries(first.searchParams)).toMatchObject({
        client_id: d.provider.clientId,
        redirect_uri: 'http://dea.test/dea/api/registration/oidc/callback',
        scope: 'openid profile',
        code_challenge_method: 'S256',
        prompt: 'login',
        max_age: '0',
      });
      const second = new URL(await d.oidc.start(alice));
      for (const name of ['state', 'nonce', 'code_challenge'])
        expect(second.searchParams.get(name), name).not.toBe(first.searchParams.get(name));
    },
  );

  storeTest.concurrent(
    'a password alone at the provider, or an acr not named, opens nothing; an acr named does',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      const login = alice.user.username;
      await expect(d.through(alice, login, { groups: [], amr: ['pwd'] })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      await expect(
        d.through(alice, login, { groups: [], amr: ['pwd'], acr: 'silver' }),
      ).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await d.refusals(alice.user.id)).toEqual([
        { method: 'oidc', reason: 'mfa-missing', amr: ['pwd'], acr: null },
        { method: 'oidc', reason: 'mfa-missing', amr: ['pwd'], acr: 'silver' },
      ]);
      // Refused before the link: nothing was linked.
      expect(await store.registrationOidcLinks.subjectOf(alice.user.id, d.provider.issuer)).toBeUndefined();
      await expect(d.through(alice, login, { groups: [], amr: ['pwd'], acr: 'gold' })).resolves.toMatchObject(
        {
          token: expect.any(String),
        },
      );
    },
  );

  storeTest.concurrent(
    "another account whose name folds to the person's (upper case, fullwidth) or differs is someone else",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person('alice');
      for (const login of ['ALICE', 'ａlice', 'mallory'])
        await expect(d.through(alice, login, TWO_FACTORS), login).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(
        (await d.refusals(alice.user.id)).map((details) => [details.reason, details.subject, details.named]),
      ).toEqual([
        ['other-person', 'ALICE', 'ALICE'],
        ['other-person', 'ａlice', 'ａlice'],
        ['other-person', 'mallory', 'mallory'],
      ]);
      expect(await d.opened(alice.user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'once linked, the subject alone decides: renamed at the provider it opens, another subject with the name does not, nor does it open for another person',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      const bob = await d.person();
      const subject = alice.user.username;
      await d.through(alice, subject, TWO_FACTORS);
      await expect(
        d.through(alice, 'impostor', { ...TWO_FACTORS, preferredUsername: subject }),
      ).rejects.toMatchObject(SIGN_IN_NEEDED);
      await expect(
        d.through(alice, subject, { ...TWO_FACTORS, preferredUsername: 'renamed.at.the.provider' }),
      ).resolves.toMatchObject({ token: expect.any(String) });
      const [again] = await d.opened(alice.user.id);
      expect(again?.details).toMatchObject({ subject });
      expect(again?.details).not.toHaveProperty('linked');
      await expect(
        d.through(bob, subject, { ...TWO_FACTORS, preferredUsername: bob.user.username }),
      ).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect((await d.refusals(bob.user.id)).map((details) => details.reason)).toEqual(['other-person']);
      expect(await d.opened(bob.user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    "an account made anew at the provider opens nothing until the person's link is removed, audited; then it links",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      await d.through(alice, alice.user.username, TWO_FACTORS);
      const anew = { ...TWO_FACTORS, preferredUsername: alice.user.username };
      await expect(d.through(alice, 'made-anew', anew)).rejects.toMatchObject(SIGN_IN_NEEDED);
      const services = { store, now: d.clock.now };
      expect(await unlinkRegistrationProvider(services, alice.user, 'cli')).toBe(1);
      expect(await unlinkRegistrationProvider(services, alice.user, 'cli')).toBe(0);
      expect(
        (await store.audit.list({ userId: alice.user.id, event: 'registration.provider_unlinked' })).map(
          (entry) => [entry.actor, entry.details.count],
        ),
      ).toEqual([
        ['cli', 0],
        ['cli', 1],
      ]);
      await d.through(alice, 'made-anew', anew);
      expect((await d.opened(alice.user.id))[0]?.details).toMatchObject({
        subject: 'made-anew',
        linked: true,
      });
    },
  );

  storeTest.concurrent(
    'an authentication at the provider older than five minutes opens nothing',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      d.provider.people.set(alice.user.username, TWO_FACTORS);
      d.provider.clock = () => d.clock.now() - 6 * MINUTE;
      await expect(d.through(alice, alice.user.username)).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await d.refusals(alice.user.id)).toEqual([
        {
          method: 'oidc',
          reason: 'token-refused',
          error: 'no authentication at the provider within 300 s (auth_time)',
          authTime: Math.floor((T0 - 6 * MINUTE) / 1000),
        },
      ]);
      d.provider.clock = () => d.clock.now() - 4 * MINUTE;
      await expect(d.through(alice, alice.user.username)).resolves.toMatchObject({
        token: expect.any(String),
      });
    },
  );

  storeTest.concurrent(
    "an answer is taken once, by the person who began it, within the flow's ten minutes; the provider's error opens nothing",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      const bob = await d.person();
      d.provider.people.set(alice.user.username, TWO_FACTORS);
      const answer = async () =>
        (await d.provider.signIn(await d.oidc.start(alice), alice.user.username)).search;
      const first = await answer();
      await expect(d.oidc.finish({ ...bob, query: first })).rejects.toMatchObject(SIGN_IN_NEEDED);
      await expect(d.oidc.finish({ ...alice, query: first })).resolves.toMatchObject({
        token: expect.any(String),
      });
      await expect(d.oidc.finish({ ...alice, query: first })).rejects.toMatchObject(SIGN_IN_NEEDED);
      const late = await answer();
      d.clock.advance(REGISTRATION_OIDC_FLOW_MS);
      await expect(d.oidc.finish({ ...alice, query: late })).rejects.toMatchObject(SIGN_IN_NEEDED);
      await expect(
        d.oidc.finish({ ...alice, query: '?error=access_denied&state=whatever' }),
      ).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect((await d.refusals(bob.user.id)).map((details) => details.reason)).toEqual(['state-unknown']);
      expect(await d.refusals(alice.user.id)).toEqual([
        { method: 'oidc', reason: 'state-unknown' },
        { method: 'oidc', reason: 'state-unknown' },
        { method: 'oidc', reason: 'provider-error', error: 'access_denied' },
      ]);
    },
  );

  storeTest.concurrent(
    'of two accounts naming the person at their first use at once, one is linked and the other refused',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished);
      const alice = await d.person();
      for (const login of ['first-account', 'second-account'])
        d.provider.people.set(login, { groups: [], amr: ['mfa'], preferredUsername: alice.user.username });
      const answers = await Promise.all(
        ['first-account', 'second-account'].map(
          async (login) => (await d.provider.signIn(await d.oidc.start(alice), login)).search,
        ),
      );
      const outcomes = await Promise.allSettled(answers.map((query) => d.oidc.finish({ ...alice, query })));
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const [opened] = await d.opened(alice.user.id);
      expect(await store.registrationOidcLinks.subjectOf(alice.user.id, d.provider.issuer)).toBe(
        opened?.details.subject,
      );
      expect((await d.refusals(alice.user.id)).map((details) => details.reason)).toEqual(['other-person']);
    },
  );

  storeTest.concurrent(
    'a provider that cannot be reached answers unavailable, audited, and tells the operator what to check',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const d = await withProvider(store, onTestFinished, `http://127.0.0.1:${await refusedPort()}`);
      const alice = await d.person();
      await expect(d.oidc.start(alice)).rejects.toMatchObject({
        errorNumber: 1,
        textKey: 'error.unavailable',
        result: { retryAfterSeconds: 30 },
      });
      expect(await d.refusals(alice.user.id)).toEqual([{ method: 'oidc', reason: 'provider-unavailable' }]);
      expect(d.warnings).toEqual([expect.stringContaining('check DEA_OIDC_ISSUER')]);
    },
  );
});
