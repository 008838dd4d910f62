import { canonicalUsername, REGISTRATION_COOKIE_NAME } from '@dea/contract';
import { describe, expect, onTestFinished } from 'vitest';
import { API } from '../../testing/api-bodies.js';
import { appTest } from '../../testing/fixtures.js';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp } from '../../testing/test-app.js';

const CHANNELS_URL = 'http://dea.test/dea/channels/';
const REDIRECT_URI = 'http://dea.test/dea/api/registration/oidc/callback';

async function withProvider(
  startApp: (settings?: Record<string, string>) => Promise<TestApp>,
  settings: Record<string, string> = {},
): Promise<{ t: TestApp; provider: TestOidcProvider }> {
  const provider = await startOidcProvider(REDIRECT_URI);
  onTestFinished(() => provider.close());
  const t = await startApp({
    DEA_CHANNELS_URL: CHANNELS_URL,
    DEA_OIDC_ISSUER: provider.issuer,
    DEA_OIDC_CLIENT_ID: provider.clientId,
    DEA_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
    ...settings,
  });
  // The provider's logins are on the app's clock: an authentication is as old as it says.
  provider.clock = t.clock.now;
  return { t, provider };
}

/** Signed in with the password, the person goes to the provider as `login` and back. */
async function throughProvider(t: TestApp, provider: TestOidcProvider, signedIn: SignedIn, login: string) {
  const started = await t.app.inject({
    method: 'GET',
    url: `${API}/registration/oidc/start`,
    headers: signedIn.headers,
  });
  expect(started.statusCode).toBe(303);
  const back = await provider.signIn(started.headers.location ?? '', login);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: signedIn.headers });
}

describe.each(STORE_KINDS)("the identity provider's sign-in for registration, on %s", (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'opens the registration only for the same person with a second factor in the ID token',
    async ({ startApp }) => {
      const { t, provider } = await withProvider(startApp);
      const person = await t.createUser();
      const signedIn = await t.signIn(person);
      // The channels page offers this way (registration/ways) since the provider is set.
      const ways = (await t.call(`${API}/registration/ways`, {}, signedIn)).json<{
        result: { oidc: boolean; open: boolean };
      }>();
      expect(ways.result).toMatchObject({ oidc: true, open: false });

      // A password at the provider too is still one factor.
      provider.people.set(person.username, { groups: [], amr: ['pwd'] });
      const single = await throughProvider(t, provider, signedIn, person.username);
      expect(single.headers.location).toBe(`${CHANNELS_URL}#signin=refused`);
      expect(single.cookies.find((cookie) => cookie.name === REGISTRATION_COOKIE_NAME)).toBeUndefined();

      // Someone else at the provider, with two factors, opens nothing for this person.
      provider.people.set('mallory', { groups: [], amr: ['pwd', 'otp'] });
      const other = await throughProvider(t, provider, signedIn, 'mallory');
      expect(other.headers.location).toBe(`${CHANNELS_URL}#signin=refused`);

      provider.people.set(person.username, { groups: [], amr: ['pwd', 'otp'] });
      const opened = await throughProvider(t, provider, signedIn, person.username);
      expect(opened.headers.location).toBe(CHANNELS_URL);
      const token = opened.cookies.find((cookie) => cookie.name === REGISTRATION_COOKIE_NAME)?.value;
      expect(token).toBeDefined();
      const list = await t.call(
        `${API}/channels/list`,
        {},
        {
          ...signedIn,
          headers: {
            ...signedIn.headers,
            cookie: `${signedIn.headers.cookie}; ${REGISTRATION_COOKIE_NAME}=${token}`,
          },
        },
      );
      expect(list.json()).toMatchObject({ error: 0, result: { channels: [] } });
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' })).map(
          (entry) => entry.details?.reason,
        ),
      ).toEqual(expect.arrayContaining(['mfa-missing', 'other-person']));
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' }),
      ).toMatchObject([{ details: { method: 'oidc', issuer: provider.issuer } }]);

      // Without the password's session the provider is never asked.
      expect((await t.app.inject({ method: 'GET', url: `${API}/registration/oidc/start` })).statusCode).toBe(
        403,
      );
    },
  );

  appTest(
    'a second factor is mfa or mca, or methods of two factor classes, or a named acr; never a location, a risk score, a presence test, wia, two methods of one class or two spellings of one',
    async ({ startApp }) => {
      const { t, provider } = await withProvider(startApp, { DEA_OIDC_MFA_ACR_VALUES: 'gold' });
      const refused = [
        { amr: ['pwd', 'geo'] },
        { amr: ['pwd', 'rba'] },
        { amr: ['pwd', 'user'] },
        { amr: ['pwd', 'kba'] },
        { amr: ['pwd', 'wia'] },
        { amr: ['PWD', 'pwd'] },
        { amr: ['pwd'], acr: 'silver' },
      ];
      const opening = [
        { amr: ['mfa'] },
        { amr: ['mca'] },
        { amr: ['pwd', 'otp'] },
        { amr: ['hwk', 'pin'] },
        { amr: ['swk', 'face'] },
        { amr: ['pwd'], acr: 'gold' },
      ];
      const person = await t.createUser();
      const signedIn = await t.signIn(person);
      for (const factors of refused) {
        provider.people.set(person.username, { groups: [], ...factors });
        const answer = await throughProvider(t, provider, signedIn, person.username);
        expect({ factors, location: answer.headers.location }).toEqual({
          factors,
          location: `${CHANNELS_URL}#signin=refused`,
        });
      }
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' })).map(
          (entry) => [entry.details?.reason, entry.details?.amr],
        ),
      ).toEqual(expect.arrayContaining(refused.map((factors) => ['mfa-missing', factors.amr])));
      expect(await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' })).toEqual(
        [],
      );
      for (const factors of opening) {
        provider.people.set(person.username, { groups: [], ...factors });
        const answer = await throughProvider(t, provider, signedIn, person.username);
        expect({ factors, location: answer.headers.location }).toEqual({ factors, location: CHANNELS_URL });
      }
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' }),
      ).toHaveLength(opening.length);
    },
  );

  appTest(
    "the person is linked by the provider's issuer and subject: another account named ALICE or ａlice opens nothing, nor one named alice once alice is linked",
    async ({ startApp }) => {
      const { t, provider } = await withProvider(startApp);
      const person = await t.createUser();
      const signedIn = await t.signIn(person);
      const refusals = async () =>
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' })).map(
          (entry) => entry.details?.reason,
        );
      const opened = () => t.services.store.audit.list({ userId: person.id, event: 'registration.opened' });

      // Other accounts of the provider whose names fold to the person's (upper case, fullwidth).
      const upper = person.username.toUpperCase();
      const fullwidth =
        String.fromCodePoint(person.username.codePointAt(0)! + 0xfee0) + person.username.slice(1);
      expect(canonicalUsername(upper)).toBe(person.username);
      expect(canonicalUsername(fullwidth)).toBe(person.username);
      for (const login of [upper, fullwidth]) {
        provider.people.set(login, { groups: [], amr: ['pwd', 'otp'] });
        const answer = await throughProvider(t, provider, signedIn, login);
        expect({ login, location: answer.headers.location }).toEqual({
          login,
          location: `${CHANNELS_URL}#signin=refused`,
        });
      }
      expect(await refusals()).toEqual(['other-person', 'other-person']);
      expect(await opened()).toEqual([]);

      // The person's own account, its claim exactly their name: the first use links its subject.
      provider.people.set(person.username, { groups: [], amr: ['pwd', 'otp'] });
      expect((await throughProvider(t, provider, signedIn, person.username)).headers.location).toBe(
        CHANNELS_URL,
      );
      expect(await opened()).toMatchObject([
        { details: { method: 'oidc', issuer: provider.issuer, subject: person.username, linked: true } },
      ]);

      // Another subject whose claim is exactly the name: the person is linked, so it is someone else.
      provider.people.set('impostor', {
        groups: [],
        amr: ['pwd', 'otp'],
        preferredUsername: person.username,
      });
      expect((await throughProvider(t, provider, signedIn, 'impostor')).headers.location).toBe(
        `${CHANNELS_URL}#signin=refused`,
      );
      expect(await refusals()).toEqual(['other-person', 'other-person', 'other-person']);

      // The linked subject opens it again whatever its name at the provider has become.
      provider.people.set(person.username, {
        groups: [],
        amr: ['pwd', 'otp'],
        preferredUsername: 'renamed.at.the.provider',
      });
      expect((await throughProvider(t, provider, signedIn, person.username)).headers.location).toBe(
        CHANNELS_URL,
      );
      // The audit lists the newest first.
      const [again] = await opened();
      expect(again?.details).toMatchObject({ subject: person.username });
      expect(again?.details).not.toHaveProperty('linked');

      // A subject linked to this person opens nothing for another person.
      const other = await t.createUser();
      const otherSignedIn = await t.signIn(other);
      provider.people.set(person.username, {
        groups: [],
        amr: ['pwd', 'otp'],
        preferredUsername: other.username,
      });
      expect((await throughProvider(t, provider, otherSignedIn, person.username)).headers.location).toBe(
        `${CHANNELS_URL}#signin=refused`,
      );
      expect(await t.services.store.audit.list({ userId: other.id, event: 'registration.opened' })).toEqual(
        [],
      );

      // The person's account at the provider made anew (another subject, the same name): refused
      // until an operator removes the link; then its first registration links it.
      provider.people.set('made-anew', {
        groups: [],
        amr: ['pwd', 'otp'],
        preferredUsername: person.username,
      });
      expect((await throughProvider(t, provider, signedIn, 'made-anew')).headers.location).toBe(
        `${CHANNELS_URL}#signin=refused`,
      );
      const unlinked = await t.dea(['user', 'unlink-provider', person.username]);
      expect(unlinked).toMatchObject({
        code: 0,
        out: `Removed the link of ${person.username} to the provider.`,
      });
      expect((await t.dea(['user', 'unlink-provider', person.username])).out).toBe(
        `${person.username} had no link to the provider.`,
      );
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.provider_unlinked' }),
      ).toMatchObject([
        { actor: 'cli', details: { count: 0 } },
        { actor: 'cli', details: { count: 1 } },
      ]);
      expect((await throughProvider(t, provider, signedIn, 'made-anew')).headers.location).toBe(CHANNELS_URL);
      const [relinked] = await opened();
      expect(relinked?.details).toMatchObject({ subject: 'made-anew', linked: true });
    },
  );

  appTest(
    "an authentication at the provider older than five minutes (its session's, despite prompt=login) opens nothing",
    async ({ startApp }) => {
      const { t, provider } = await withProvider(startApp);
      const person = await t.createUser();
      const signedIn = await t.signIn(person);
      provider.people.set(person.username, { groups: [], amr: ['mfa'] });
      provider.clock = () => t.clock.now() - 6 * 60_000;
      expect((await throughProvider(t, provider, signedIn, person.username)).headers.location).toBe(
        `${CHANNELS_URL}#signin=refused`,
      );
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' }),
      ).toMatchObject([{ details: { reason: 'token-refused', authTime: expect.any(Number) } }]);
    },
  );

  appTest(
    'of two accounts of the provider whose claim names the person, signing in at once for the first time, one is linked and the other refused',
    async ({ startApp }) => {
      const { t, provider } = await withProvider(startApp);
      const person = await t.createUser();
      const signedIn = await t.signIn(person);
      for (const login of ['first-account', 'second-account'])
        provider.people.set(login, { groups: [], amr: ['mfa'], preferredUsername: person.username });
      const started = await Promise.all(
        ['first-account', 'second-account'].map(async (login) => {
          const start = await t.app.inject({
            method: 'GET',
            url: `${API}/registration/oidc/start`,
            headers: signedIn.headers,
          });
          return provider.signIn(start.headers.location ?? '', login);
        }),
      );
      const answers = await Promise.all(
        started.map((back) =>
          t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: signedIn.headers }),
        ),
      );
      expect(answers.map((answer) => answer.headers.location).sort()).toEqual([
        CHANNELS_URL,
        `${CHANNELS_URL}#signin=refused`,
      ]);
      const [opened] = await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' });
      const linked = opened?.details?.subject as string;
      expect(await t.services.store.registrationOidcLinks.subjectOf(person.id, provider.issuer)).toBe(linked);
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'registration.refused' }),
      ).toMatchObject([{ details: { reason: 'other-person' } }]);
    },
  );
});
