import { describe, onTestFinished } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { appTest } from '../../testing/fixtures.js';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';
const CONSOLE_URL = 'http://console.test/admin/';
const REDIRECT_URI = 'http://console.test/dea/admin-api/oidc/callback';
const ROLES = { 'dea-admins': 'admin', 'it-helpdesk': 'helpdesk', auditors: 'auditor' };

async function withProvider(
  startApp: (settings?: Record<string, string>) => Promise<TestApp>,
  settings: Record<string, string> = {},
  providerOptions: Parameters<typeof startOidcProvider>[1] = {},
): Promise<{ t: TestApp; provider: TestOidcProvider }> {
  const provider = await startOidcProvider(REDIRECT_URI, providerOptions);
  onTestFinished(() => provider.close());
  const t = await startApp({
    DEA_CONSOLE_URL: CONSOLE_URL,
    DEA_CONSOLE_OIDC_ISSUER: provider.issuer,
    DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
    DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
    DEA_CONSOLE_OIDC_PROVIDER_NAME: 'Example SSO',
    DEA_CONSOLE_OIDC_ROLES: JSON.stringify(ROLES),
    ...settings,
  });
  // The provider's logins are on the app's clock: an authentication is as old as it says.
  provider.clock = t.clock.now;
  return { t, provider };
}

/** The console's /oidc/start, as the browser follows it: where it is sent, and its flow cookie. */
async function begin(t: TestApp) {
  const started = await t.app.inject({ method: 'GET', url: `${BASE}/oidc/start` });
  const flow = started.cookies.find((cookie) => cookie.name === 'dea_console_oidc');
  return { started, location: started.headers.location ?? '', flowCookie: flow?.value };
}

/** The provider's answer brought back to the console by a browser holding `flowCookie`. */
function callback(t: TestApp, back: URL, flowCookie: string | undefined) {
  return t.app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    ...(flowCookie !== undefined && { cookies: { dea_console_oidc: flowCookie } }),
  });
}

/**
 * Signs `login` in end to end (in a new browser, or in `browser` with its provider's session);
 * answers the callback's answer and the console session's headers.
 */
async function signIn(
  t: TestApp,
  provider: TestOidcProvider,
  login: string,
  { browser = provider, again = false }: { browser?: Pick<TestOidcProvider, 'signIn'>; again?: boolean } = {},
) {
  const started = await t.app.inject({ method: 'GET', url: `${BASE}/oidc/start${again ? '?again=1' : ''}` });
  const location = started.headers.location ?? '';
  const flowCookie = started.cookies.find((cookie) => cookie.name === 'dea_console_oidc')?.value;
  const back = await browser.signIn(location, login);
  const answer = await callback(t, back, flowCookie);
  const cookies = Object.fromEntries(answer.cookies.map((cookie) => [cookie.name, cookie.value]));
  return {
    answer,
    headers: {
      cookie: `dea_console=${cookies.dea_console ?? ''}; dea_console_token=${cookies.dea_console_token ?? ''}`,
      'x-console-token': cookies.dea_console_token ?? '',
    },
  };
}

const me = (t: TestApp, headers: { cookie: string }) =>
  t.app.inject({ method: 'GET', url: `${BASE}/me`, headers: { cookie: headers.cookie } });

describe.each(DOOR_STORE_KINDS)('console sign-in with an OpenID provider on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "signing out revokes the session's refresh token at the provider, and audits it",
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ada', { groups: ['dea-admins'], amr: ['pwd', 'otp'] });
      const { headers } = await signIn(t, provider, 'ada');
      expect((await me(t, headers)).statusCode).toBe(200);
      expect(provider.destroyedRefreshTokens).toEqual([]);
      const ended = await t.app.inject({ method: 'POST', url: `${BASE}/session/end`, headers, payload: {} });
      expect(ended.statusCode).toBeLessThan(300);
      expect(provider.destroyedRefreshTokens).toHaveLength(1);
      expect((await me(t, headers)).statusCode).toBe(401);
      const [signout] = await t.services.store.audit.list({ event: 'console.signout' });
      expect(signout?.details).toMatchObject({ refreshTokenRevoked: true });
    },
  );

  appTest(
    'signing in sends the browser to the provider with a flow cookie and back to the console with a session past its second factor; the account has no password',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ada', { groups: ['staff', 'dea-admins'], amr: ['pwd', 'otp'], name: 'Ada L.' });
      expect((await t.app.inject({ method: 'GET', url: `${BASE}/oidc` })).json()).toMatchObject({
        result: { provider: { name: 'Example SSO' } },
      });

      const { started, location, flowCookie } = await begin(t);
      expect(started.statusCode).toBe(303);
      expect(new URL(location).origin).toBe(provider.issuer);
      expect(started.cookies.find((cookie) => cookie.name === 'dea_console_oidc')).toMatchObject({
        httpOnly: true,
        sameSite: 'Lax',
      });

      const back = await provider.signIn(location, 'ada');
      const answer = await callback(t, back, flowCookie);
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe('/admin/');
      const cookies = Object.fromEntries(answer.cookies.map((cookie) => [cookie.name, cookie.value]));
      const signedIn = await me(t, { cookie: `dea_console=${cookies.dea_console ?? ''}` });
      expect(signedIn.json()).toMatchObject({
        result: { username: 'ada', displayName: 'Ada L.', role: 'admin', passkeyVerified: true, next: null },
      });

      // The password door: an empty password is no request, any other is refused.
      const byPassword = (password: string) =>
        t.app.inject({ method: 'POST', url: `${BASE}/session`, payload: { username: 'ada', password } });
      expect((await byPassword('')).statusCode).toBe(400);
      expect((await byPassword('anything at all')).json()).toMatchObject({ error: 3 });
    },
  );

  appTest(
    'a refused sign-in sends the browser back to the console with the reason: a callback without its flow, a provider that cannot be used',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ben', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const { location } = await begin(t);
      const back = await provider.signIn(location, 'ben');
      const elsewhere = await callback(t, back, undefined);
      expect(elsewhere.statusCode).toBe(303);
      expect(elsewhere.headers.location).toBe('/admin/#oidc-refused=state-unknown');
      expect(elsewhere.cookies.find((cookie) => cookie.name === 'dea_console')).toBeUndefined();

      const unreachable = await startApp({
        DEA_CONSOLE_URL: CONSOLE_URL,
        DEA_CONSOLE_OIDC_ISSUER: 'http://127.0.0.1:1/realms/none',
        DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
        DEA_CONSOLE_OIDC_ROLES: JSON.stringify(ROLES),
      });
      expect((await begin(unreachable)).location).toBe('/admin/#oidc-refused=provider-unavailable');
    },
  );

  appTest(
    "a role map's scope limits the person to the members of its groups in the help desk",
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp, {
        DEA_CONSOLE_OIDC_ROLES: JSON.stringify({
          ...ROLES,
          'helpdesk-eu': { role: 'helpdesk', scope: ['Staff EU'] },
        }),
      });
      const { store } = t.services;
      const inside = await t.createUser();
      const outside = await t.createUser();
      const staffEu = newId(t.clock.now());
      await store.groups.create({ id: staffEu, name: 'Staff EU', priority: 5 });
      await store.groups.addMember(staffEu, inside.id);
      provider.people.set('hal', { groups: ['staff', 'helpdesk-eu'], amr: ['mfa'] });
      const { headers } = await signIn(t, provider, 'hal');
      const view = (userId: string) =>
        t.app.inject({ method: 'GET', url: `${BASE}/helpdesk/users/${userId}`, headers });
      const search = async (q: string) =>
        (await t.app.inject({ method: 'GET', url: `${BASE}/helpdesk/users?q=${q}`, headers }))
          .json<{ result: { users: { id: string }[] } }>()
          .result.users.map((user) => user.id);

      expect((await me(t, headers)).json()).toMatchObject({ result: { role: 'helpdesk' } });
      expect((await view(inside.id)).statusCode).toBe(200);
      expect((await view(outside.id)).statusCode).toBe(404);
      expect(await search('user-')).toEqual([inside.id]);
    },
  );

  appTest(
    'a code for a caller after the second factor went stale asks for a sign-in at the provider again, which must be new',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('hana', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 3 },
      });
      const issue = (headers: { cookie: string; 'x-console-token': string }) =>
        t.app.inject({
          method: 'POST',
          url: `${BASE}/helpdesk/users/${user.id}/codes`,
          headers,
          payload: { reason: 'Ticket 4711, called back on the desk phone' },
        });
      const first = await signIn(t, provider, 'hana');
      expect((await issue(first.headers)).json()).toMatchObject({ error: 0 });

      t.clock.advance(5 * 60_000);
      const stale = await issue(first.headers);
      expect(stale.statusCode).toBe(403);
      expect(stale.json()).toMatchObject({ result: { passkey: 'provider' } });

      const again = await t.app.inject({ method: 'GET', url: `${BASE}/oidc/start?again=1` });
      const asked = new URL(again.headers.location ?? '');
      expect(asked.searchParams.get('prompt')).toBe('login');
      expect(asked.searchParams.get('max_age')).toBe('0');
      const back = await provider.signIn(asked.href, 'hana');
      const flow = again.cookies.find((cookie) => cookie.name === 'dea_console_oidc')?.value;
      const answer = await callback(t, back, flow);
      expect(answer.headers.location).toBe('/admin/');
      const cookies = Object.fromEntries(answer.cookies.map((cookie) => [cookie.name, cookie.value]));
      const fresh = {
        cookie: `dea_console=${cookies.dea_console ?? ''}; dea_console_token=${cookies.dea_console_token ?? ''}`,
        'x-console-token': cookies.dea_console_token ?? '',
      };
      expect((await issue(fresh)).json()).toMatchObject({ error: 0 });
    },
  );
});
