import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import { describe, expect, onTestFinished } from 'vitest';
import { API } from '../../testing/api-bodies.js';
import { appTest } from '../../testing/fixtures.js';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
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

describe.each(DOOR_STORE_KINDS)("the identity provider's sign-in for registration, on %s", (kind) => {
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

      // dea user unlink-provider removes the link the sign-in made, and says when there was none.
      expect(await t.dea(['user', 'unlink-provider', person.username])).toMatchObject({
        code: 0,
        out: `Removed the link of ${person.username} to the provider.`,
      });
      expect((await t.dea(['user', 'unlink-provider', person.username])).out).toBe(
        `${person.username} had no link to the provider.`,
      );
    },
  );
});
