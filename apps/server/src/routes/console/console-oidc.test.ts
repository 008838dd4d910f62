import { describe, onTestFinished } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { appTest } from '../../testing/fixtures.js';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider.js';
import { STORE_KINDS } from '../../testing/stores.js';
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

describe.each(STORE_KINDS)('console sign-in with an OpenID provider on %s', (kind) => {
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
    'signs in with code, PKCE, state and nonce; the role comes from the groups; audited; no password for the account',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ada', { groups: ['staff', 'dea-admins'], amr: ['pwd', 'otp'], name: 'Ada L.' });
      expect((await t.app.inject({ method: 'GET', url: `${BASE}/oidc` })).json()).toMatchObject({
        result: { provider: { name: 'Example SSO' } },
      });

      const { started, location, flowCookie } = await begin(t);
      expect(started.statusCode).toBe(303);
      const asked = new URL(location);
      expect(asked.origin).toBe(provider.issuer);
      expect(Object.fromEntries(asked.searchParams)).toMatchObject({
        client_id: 'dea-console',
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        state: expect.any(String),
        nonce: expect.any(String),
      });
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
      expect(await t.services.store.audit.list({ event: 'console.oidc_signin' })).toMatchObject([
        {
          actor: 'console:ada',
          details: { issuer: provider.issuer, subject: 'ada', role: 'admin', created: true },
        },
      ]);

      // The account made for the provider's person has no password: the password door refuses it.
      const byPassword = await t.app.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { username: 'ada', password: '' },
      });
      expect(byPassword.statusCode).toBe(400);
      const anyPassword = await t.app.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { username: 'ada', password: 'anything at all' },
      });
      expect(anyPassword.json()).toMatchObject({ error: 3 });
      expect(await t.services.store.audit.list({ event: 'console.signin_failed' })).toMatchObject([
        { details: { reason: 'identity-provider-account' } },
      ]);

      // A second sign-in finds the same account.
      expect((await signIn(t, provider, 'ada')).answer.headers.location).toBe('/admin/');
      expect(await t.services.store.console.listAccounts()).toHaveLength(1);

      // A first sign-in of one person in three browsers at once makes one account, and all sign in.
      provider.people.set('bo', { groups: ['auditors'], amr: ['mfa'] });
      const answered = await Promise.all(
        await Promise.all(
          Array.from({ length: 3 }, async () => {
            const { location, flowCookie } = await begin(t);
            return { back: await provider.signIn(location, 'bo'), flowCookie };
          }),
        ).then((backs) => backs.map(({ back, flowCookie }) => callback(t, back, flowCookie))),
      );
      expect(answered.map((each) => each.headers.location)).toEqual(['/admin/', '/admin/', '/admin/']);
      expect(
        (await t.services.store.console.listAccounts()).filter((account) => account.username === 'bo'),
      ).toHaveLength(1);
      expect(
        (await t.services.store.audit.list({ event: 'console.account_created' })).filter(
          (entry) => entry.details.username === 'bo',
        ),
      ).toHaveLength(1);
    },
  );

  appTest(
    'a state is good for one callback: of parallel replays one signs in; another browser and a later replay are refused',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ben', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const { location, flowCookie } = await begin(t);
      const back = await provider.signIn(location, 'ben');

      // Another browser (without this one's flow cookie) brings the same answer: refused, and the
      // flow is not spent by it.
      const elsewhere = await callback(t, back, undefined);
      expect(elsewhere.headers.location).toBe('/admin/#oidc-refused=state-unknown');

      const answers = await Promise.all(Array.from({ length: 4 }, () => callback(t, back, flowCookie)));
      const locations = answers.map((answer) => answer.headers.location).sort();
      expect(locations).toEqual([
        '/admin/',
        '/admin/#oidc-refused=state-unknown',
        '/admin/#oidc-refused=state-unknown',
        '/admin/#oidc-refused=state-unknown',
      ]);
      expect((await callback(t, back, flowCookie)).headers.location).toBe(
        '/admin/#oidc-refused=state-unknown',
      );
      expect(await t.services.store.audit.list({ event: 'console.oidc_signin' })).toHaveLength(1);
      const refused = await t.services.store.audit.list({ event: 'console.oidc_refused' });
      expect(refused).toHaveLength(5);
      expect(refused.every((entry) => entry.details.reason === 'state-unknown')).toBe(true);
    },
  );

  appTest(
    'a token without a second factor and a person of no mapped group are refused with the reason',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('cleo', { groups: ['dea-admins'] });
      provider.people.set('dan', { groups: ['dea-admins'], amr: ['pwd'] });
      provider.people.set('eve', { groups: ['staff', 'sales'], amr: ['pwd', 'hwk'] });

      for (const login of ['cleo', 'dan']) {
        const { answer } = await signIn(t, provider, login);
        expect(answer.headers.location).toBe('/admin/#oidc-refused=mfa-missing');
        expect(answer.cookies.find((cookie) => cookie.name === 'dea_console')).toBeUndefined();
      }
      const unmapped = await signIn(t, provider, 'eve');
      expect(unmapped.answer.headers.location).toBe('/admin/#oidc-refused=unmapped');
      expect(await t.services.store.console.listAccounts()).toEqual([]);
      expect(
        (await t.services.store.audit.list({ event: 'console.oidc_refused' })).map((entry) => entry.details),
      ).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ reason: 'mfa-missing', subject: 'cleo', amr: null }),
          expect.objectContaining({ reason: 'mfa-missing', subject: 'dan', amr: ['pwd'] }),
          expect.objectContaining({ reason: 'unmapped', subject: 'eve', claimValues: ['staff', 'sales'] }),
        ]),
      );

      // Without the requirement, the provider's word alone is taken.
      const lax = await withProvider(startApp, { DEA_CONSOLE_OIDC_REQUIRE_MFA: 'false' });
      lax.provider.people.set('dan', { groups: ['dea-admins'], amr: ['pwd'] });
      expect((await signIn(lax.t, lax.provider, 'dan')).answer.headers.location).toBe('/admin/');
    },
  );

  appTest(
    'a wrong issuer is refused: an answer naming another issuer, and a provider whose discovery names another',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('fay', { groups: ['auditors'], amr: ['mfa'] });
      const { location, flowCookie } = await begin(t);
      const back = await provider.signIn(location, 'fay');
      expect(back.searchParams.get('iss')).toBe(provider.issuer);
      back.searchParams.set('iss', 'http://127.0.0.1:1/another');
      expect((await callback(t, back, flowCookie)).headers.location).toBe(
        '/admin/#oidc-refused=wrong-issuer',
      );

      // The same provider reached under another name: its discovery document names 127.0.0.1.
      const elsewhere = await startApp({
        DEA_CONSOLE_URL: CONSOLE_URL,
        DEA_CONSOLE_OIDC_ISSUER: provider.issuer.replace('127.0.0.1', 'localhost'),
        DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
        DEA_CONSOLE_OIDC_ROLES: JSON.stringify(ROLES),
      });
      const started = await begin(elsewhere);
      expect(started.location).toBe('/admin/#oidc-refused=provider-unavailable');
      expect(await elsewhere.services.store.audit.list({ event: 'console.oidc_refused' })).toMatchObject([
        {
          details: {
            stage: 'signin',
            reason: 'provider-unavailable',
            message: expect.stringContaining('check DEA_CONSOLE_OIDC_ISSUER'),
          },
        },
      ]);
    },
  );

  appTest(
    "a role map's scope limits the person to the members of its groups from the sign-in, and each refresh takes it again",
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp, {
        DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: '300',
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
      const hal = { groups: ['staff', 'helpdesk-eu'], amr: ['mfa'] };
      provider.people.set('hal', hal);
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
      expect(await store.audit.list({ event: 'console.oidc_signin' })).toMatchObject([
        { actor: 'console:hal', details: { role: 'helpdesk', scope: ['Staff EU'] } },
      ]);

      // A group mapping to the role without a scope lifts it at the next refresh...
      hal.groups = ['helpdesk-eu', 'it-helpdesk'];
      t.clock.advance(300_000);
      expect((await view(outside.id)).statusCode).toBe(200);
      expect((await search('user-')).sort()).toEqual([inside.id, outside.id].sort());
      // ...and its loss brings the scope back at the one after.
      hal.groups = ['helpdesk-eu'];
      t.clock.advance(300_000);
      expect((await view(outside.id)).statusCode).toBe(404);
      expect(await store.audit.list({ event: 'console.oidc_role_changed' })).toMatchObject([
        { details: { from: 'helpdesk', to: 'helpdesk', fromScope: null, toScope: ['Staff EU'] } },
        { details: { from: 'helpdesk', to: 'helpdesk', fromScope: ['Staff EU'], toScope: null } },
      ]);
    },
  );

  appTest(
    'the role is taken again at the refresh: a changed group changes it for every request at once, no mapped group ends the session',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp, { DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: '300' });
      const gil = { groups: ['dea-admins'], amr: ['mfa'] };
      provider.people.set('gil', gil);
      const { headers } = await signIn(t, provider, 'gil');
      expect((await me(t, headers)).json()).toMatchObject({ result: { role: 'admin' } });

      gil.groups = ['it-helpdesk'];
      t.clock.advance(299_000);
      expect((await me(t, headers)).json()).toMatchObject({ result: { role: 'admin' } });
      t.clock.advance(1_000);
      const together = await Promise.all(Array.from({ length: 5 }, () => me(t, headers)));
      expect(together.map((answer) => answer.json<{ result: { role: string } }>().result.role)).toEqual(
        Array.from({ length: 5 }, () => 'helpdesk'),
      );
      expect(await t.services.store.audit.list({ event: 'console.oidc_role_changed' })).toMatchObject([
        { actor: 'console:gil', details: { from: 'admin', to: 'helpdesk' } },
      ]);

      gil.groups = ['staff'];
      t.clock.advance(300_000);
      expect((await me(t, headers)).statusCode).toBe(401);
      expect((await me(t, headers)).statusCode).toBe(401);
      expect(await t.services.store.audit.list({ event: 'console.oidc_refused' })).toMatchObject([
        { details: { stage: 'refresh', reason: 'unmapped', claimValues: ['staff'] } },
      ]);
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

  appTest(
    'a second factor is mfa or mca, or methods of two factor classes, or a named acr; never a location, a risk score, a presence test, wia, two methods of one class or two spellings of one',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp, { DEA_CONSOLE_OIDC_MFA_ACR_VALUES: 'gold' });
      const refused = {
        geo: { amr: ['pwd', 'geo'] },
        rba: { amr: ['pwd', 'rba'] },
        user: { amr: ['pwd', 'user'] },
        kba: { amr: ['pwd', 'kba'] },
        wia: { amr: ['pwd', 'wia'] },
        spelt: { amr: ['PWD', 'pwd'] },
        silver: { amr: ['pwd'], acr: 'silver' },
      };
      const signedIn = {
        mfa: { amr: ['mfa'] },
        mca: { amr: ['mca'] },
        otp: { amr: ['pwd', 'otp'] },
        hwk: { amr: ['hwk', 'pin'] },
        face: { amr: ['swk', 'face'] },
        gold: { amr: ['pwd'], acr: 'gold' },
      };
      for (const [login, person] of Object.entries({ ...refused, ...signedIn }))
        provider.people.set(login, { groups: ['auditors'], ...person });
      for (const login of Object.keys(refused)) {
        const { answer } = await signIn(t, provider, login);
        expect({ login, location: answer.headers.location }).toEqual({
          login,
          location: '/admin/#oidc-refused=mfa-missing',
        });
      }
      for (const login of Object.keys(signedIn)) {
        const { answer, headers } = await signIn(t, provider, login);
        expect({ login, location: answer.headers.location }).toEqual({ login, location: '/admin/' });
        expect((await me(t, headers)).json()).toMatchObject({
          result: { username: login, passkeyVerified: true },
        });
      }
      expect(
        (await t.services.store.audit.list({ event: 'console.oidc_refused' })).map(
          (entry) => entry.details.amr,
        ),
      ).toEqual(expect.arrayContaining(Object.values(refused).map((person) => person.amr)));
    },
  );

  appTest(
    "a silent sign-in through the provider's session is as old as its authentication there: no code for a caller until a sign-in again authenticates anew",
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('ivo', { groups: ['it-helpdesk'], amr: ['pwd', 'otp'] });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 9 },
      });
      const issue = (headers: { cookie: string; 'x-console-token': string }) =>
        t.app.inject({
          method: 'POST',
          url: `${BASE}/helpdesk/users/${user.id}/codes`,
          headers,
          payload: { reason: 'Ticket 4712, called back on the desk phone' },
        });
      const browser = provider.browser();
      const first = await signIn(t, provider, 'ivo', { browser });
      expect(provider.logins).toEqual(['ivo']);
      expect((await issue(first.headers)).json()).toMatchObject({ error: 0 });

      // Past DEA_CONSOLE_PASSKEY_FRESH_MINUTES (5), and past DEA_CONSOLE_IDLE_MINUTES (15) too, a
      // plain sign-in goes through the provider's session without a login: a console session, but
      // its second factor is as old as that session's authentication, 40 minutes.
      t.clock.advance(40 * 60_000);
      expect((await issue(first.headers)).statusCode).toBe(401);
      const silent = await signIn(t, provider, 'ivo', { browser });
      expect(silent.answer.headers.location).toBe('/admin/');
      expect(provider.logins).toEqual(['ivo']);
      expect((await me(t, silent.headers)).json()).toMatchObject({ result: { passkeyVerified: true } });
      const refused = await issue(silent.headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ result: { passkey: 'provider' } });
      // The audit lists the newest first.
      const [silentSignIn] = await t.services.store.audit.list({ event: 'console.oidc_signin' });
      expect(silentSignIn?.details).toMatchObject({
        authenticatedAt: new Date(t.clock.now() - 40 * 60_000).toISOString(),
      });

      // The sign-in again asks the provider for a new authentication, which makes the code possible.
      const again = await signIn(t, provider, 'ivo', { browser, again: true });
      expect(again.answer.headers.location).toBe('/admin/');
      expect(provider.logins).toEqual(['ivo', 'ivo']);
      expect((await issue(again.headers)).json()).toMatchObject({ error: 0 });
    },
  );

  appTest(
    'a sign-in again whose ID token says the authentication is older than two minutes is refused',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp);
      provider.people.set('jo', { groups: ['it-helpdesk'], amr: ['mfa'] });
      // A provider that keeps its session's old authentication despite prompt=login and max_age=0.
      provider.clock = () => t.clock.now() - 10 * 60_000;
      const stale = await signIn(t, provider, 'jo', { again: true });
      expect(stale.answer.headers.location).toBe('/admin/#oidc-refused=token-refused');
      expect(await t.services.store.audit.list({ event: 'console.oidc_refused' })).toMatchObject([
        { details: { reason: 'token-refused', subject: 'jo', authTime: expect.any(Number) } },
      ]);
      expect(await t.services.store.audit.list({ event: 'console.oidc_signin' })).toEqual([]);
    },
  );

  appTest(
    'an ID token that does not say when the person authenticated signs in, but gives no code for a caller before a sign-in again that says it',
    async ({ startApp, expect }) => {
      const { t, provider } = await withProvider(startApp, {}, { requireAuthTime: false });
      provider.people.set('kai', { groups: ['it-helpdesk'], amr: ['pwd', 'hwk'] });
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 9 },
      });
      const issue = (headers: { cookie: string; 'x-console-token': string }) =>
        t.app.inject({
          method: 'POST',
          url: `${BASE}/helpdesk/users/${user.id}/codes`,
          headers,
          payload: { reason: 'Ticket 4713, called back on the desk phone' },
        });
      const first = await signIn(t, provider, 'kai');
      expect(first.answer.headers.location).toBe('/admin/');
      expect(await t.services.store.audit.list({ event: 'console.oidc_signin' })).toMatchObject([
        { details: { authenticatedAt: null } },
      ]);
      expect((await me(t, first.headers)).json()).toMatchObject({ result: { passkeyVerified: true } });
      expect((await issue(first.headers)).json()).toMatchObject({ result: { passkey: 'provider' } });

      // max_age makes auth_time required (OpenID Connect Core 3.1.2.1).
      const again = await signIn(t, provider, 'kai', { again: true });
      expect(again.answer.headers.location).toBe('/admin/');
      expect((await issue(again.headers)).json()).toMatchObject({ error: 0 });
    },
  );
});
