import { usernameOrThrow } from '@dea/contract';
import { describe, type TestContext } from 'vitest';
import { sha256 } from '../../crypto/keyed-hash.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { startOidcProvider, type TestOidcProvider } from '../../testing/oidc-provider.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ConsoleAccounts } from '../identity/console-accounts.js';
import { ConsoleEnrolment } from './console-enrolment.js';
import { ConsoleOidc, ConsoleOidcRefused, OIDC_FLOW_MS } from './console-oidc.js';
import { consoleOidcConfigOf } from './console-oidc-settings.js';

const T0 = Date.UTC(2026, 11, 7, 15);
const MINUTE = 60_000;
const ADDRESS = '198.51.100.9';
const REDIRECT_URI = 'https://dea.example.org/dea/admin-api/oidc/callback';
const ROLES = {
  'dea-admins': 'admin',
  'it-helpdesk': 'helpdesk',
  auditors: 'auditor',
  'helpdesk-eu': { role: 'helpdesk', scope: ['Staff EU'] },
};
const REFRESH_SECONDS = 300;

/**
 * The console's sign-in with a real OpenID provider (in this process) over the store, on a clock
 * the test moves, the provider's logins on the same clock.
 */
async function oidcOf(
  { store, onTestFinished }: { store: Store; onTestFinished: TestContext['onTestFinished'] },
  settings: { requireMfa?: boolean; issuer?: string } = {},
) {
  const provider = await startOidcProvider(REDIRECT_URI);
  onTestFinished(() => provider.close());
  const clock = { at: T0 };
  const now = () => clock.at;
  provider.clock = now;
  const problems: string[] = [];
  const config = consoleOidcConfigOf(
    {
      DEA_CONSOLE_OIDC_ISSUER: settings.issuer ?? provider.issuer,
      DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
      DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
      DEA_CONSOLE_OIDC_PROVIDER_NAME: 'Example SSO',
      DEA_CONSOLE_OIDC_SCOPES: 'openid profile email offline_access',
      DEA_CONSOLE_OIDC_ROLE_CLAIM: 'groups',
      DEA_CONSOLE_OIDC_ROLES: JSON.stringify(ROLES),
      DEA_CONSOLE_OIDC_REQUIRE_MFA: settings.requireMfa ?? true,
      DEA_CONSOLE_OIDC_MFA_ACR_VALUES: '',
      DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: REFRESH_SECONDS,
    },
    problems,
  );
  if (config === undefined || problems.length > 0) throw new Error(problems.join('; '));
  const enrolment = new ConsoleEnrolment({
    store,
    keys: [Buffer.alloc(32, 3)],
    settings: { consoleUrl: 'https://dea.example.org/admin/', enrolmentLinkMs: MINUTE },
    now,
  });
  const accounts = new ConsoleAccounts({ store, enrolment, now });
  const warnings: string[] = [];
  const oidc = new ConsoleOidc({
    store,
    accounts,
    config,
    redirectUri: REDIRECT_URI,
    sealKeys: [Buffer.alloc(32, 8)],
    now,
    warn: (message) => warnings.push(message),
  });
  return { oidc, provider, clock, accounts, warnings, ...flowsOf(store, oidc, provider) };
}

function flowsOf(store: Store, oidc: ConsoleOidc, provider: TestOidcProvider) {
  /** The provider's answer to a sign-in begun in a browser, as it brings it back. */
  const answerOf = async (login: string, again = false) => {
    const { url, browserToken } = await oidc.start(ADDRESS, again);
    const back = await provider.signIn(url, login);
    return { query: back.search, browserToken, url: new URL(url) };
  };
  return {
    answerOf,
    /** A whole sign-in of `login`: its session, and the account and session as a request reads them. */
    async signIn(login: string, again = false) {
      const { query, browserToken } = await answerOf(login, again);
      const { sessionId } = await oidc.finish(query, browserToken, ADDRESS);
      const session = await store.console.findSession(sha256(sessionId));
      const account = await store.console.findAccountById(session?.accountId ?? '');
      if (session === undefined || account === undefined) throw new Error('no session');
      /** As a request of the session reads it: the account as it stands now. */
      const current = async () => oidc.current(session, (await store.console.findAccountById(account.id))!);
      return { session, account, current };
    },
    /** Why the sign-in of `login` was refused, as the console shows it. */
    async refusalOf(login: string, again = false) {
      const { query, browserToken } = await answerOf(login, again);
      return oidc.finish(query, browserToken, ADDRESS).then(
        () => 'signed in',
        (error: unknown) => (error instanceof ConsoleOidcRefused ? error.reason : 'not refused'),
      );
    },
    refusals: async () =>
      (await store.audit.list({ event: 'console.oidc_refused', limit: 100 })).map((entry) => entry.details),
  };
}

describe.each(STORE_KINDS)('console sign-in with an OpenID provider on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a first sign-in makes a passwordless account with its groups' role, past its second factor; a second finds it",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('ada', { groups: ['staff', 'dea-admins'], amr: ['pwd', 'otp'], name: 'Ada L.' });
      const { url } = await t.answerOf('ada');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        client_id: 'dea-console',
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        code_challenge_method: 'S256',
        state: expect.any(String),
        nonce: expect.any(String),
      });
      expect(url.searchParams.has('prompt')).toBe(false);
      const { session, account } = await t.signIn('ada');
      expect(account).toMatchObject({
        username: 'ada',
        displayName: 'Ada L.',
        role: 'admin',
        passwordHash: '',
      });
      // The provider's second factor stands for the passkey, as old as the authentication there.
      expect(session).toMatchObject({ passkeyAt: T0, lastSeenAt: T0 });
      expect(await store.audit.list({ event: 'console.oidc_signin' })).toMatchObject([
        {
          actor: 'console:ada',
          clientAddress: ADDRESS,
          details: {
            issuer: t.provider.issuer,
            subject: 'ada',
            role: 'admin',
            claimValues: ['staff', 'dea-admins'],
            created: true,
            authenticatedAt: new Date(T0).toISOString(),
          },
        },
      ]);
      await t.signIn('ada');
      expect(await store.console.listAccounts()).toHaveLength(1);
      expect((await store.audit.list({ event: 'console.oidc_signin', limit: 1 }))[0]?.details).toMatchObject({
        created: false,
      });
    },
  );

  storeTest.concurrent(
    'a flow is taken once, by the browser that began it, within ten minutes',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('ben', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const { query, browserToken } = await t.answerOf('ben');
      const elsewhere = await t.answerOf('ben');
      // Another browser's flow token, or none: refused, and this browser's flow is not spent.
      for (const token of [undefined, elsewhere.browserToken])
        await expect(t.oidc.finish(query, token, ADDRESS)).rejects.toMatchObject({ reason: 'state-unknown' });
      t.clock.at = T0 + OIDC_FLOW_MS;
      await t.oidc.finish(query, browserToken, ADDRESS);
      await expect(t.oidc.finish(query, browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'state-unknown',
      });

      const late = await t.answerOf('ben');
      t.clock.at += OIDC_FLOW_MS + 1;
      await expect(t.oidc.finish(late.query, late.browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'state-unknown',
      });
      expect((await t.refusals()).map((details) => details.reason)).toEqual(
        Array.from({ length: 4 }, () => 'state-unknown'),
      );
      expect(await store.audit.list({ event: 'console.oidc_signin' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "the provider's error and an answer naming another issuer are refused, each spending the flow",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('cy', { groups: ['auditors'], amr: ['mfa'] });
      const denied = await t.oidc.start(ADDRESS);
      const query = '?error=access_denied&error_description=The+person+said+no';
      await expect(t.oidc.finish(query, denied.browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'provider-error',
      });
      await expect(t.oidc.finish(query, denied.browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'provider-error',
      });
      const { query: answer, browserToken } = await t.answerOf('cy');
      const forged = new URLSearchParams(answer);
      forged.set('iss', 'https://another.example');
      await expect(t.oidc.finish(`?${forged.toString()}`, browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'wrong-issuer',
      });
      await expect(t.oidc.finish(answer, browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'state-unknown',
      });
      expect(await t.refusals()).toMatchObject([
        { stage: 'signin', reason: 'state-unknown' },
        { stage: 'signin', reason: 'wrong-issuer', iss: 'https://another.example' },
        { stage: 'signin', reason: 'provider-error', error: 'access_denied' },
        { stage: 'signin', reason: 'provider-error', message: 'provider-error: The person said no' },
      ]);
      expect(await store.console.listAccounts()).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a token without a second factor and a person of no mapped group are refused with the reason, no account made',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('cleo', { groups: ['dea-admins'] });
      t.provider.people.set('dan', { groups: ['dea-admins'], amr: ['pwd'] });
      t.provider.people.set('eve', { groups: ['staff', 'sales'], amr: ['pwd', 'hwk'] });
      expect(await t.refusalOf('cleo')).toBe('mfa-missing');
      expect(await t.refusalOf('dan')).toBe('mfa-missing');
      expect(await t.refusalOf('eve')).toBe('unmapped');
      expect(await store.console.listAccounts()).toEqual([]);
      expect(await t.refusals()).toMatchObject([
        { reason: 'unmapped', subject: 'eve', claimValues: ['staff', 'sales'] },
        { reason: 'mfa-missing', subject: 'dan', amr: ['pwd'] },
        { reason: 'mfa-missing', subject: 'cleo', amr: null },
      ]);

      // Without the requirement, the provider's word alone is taken.
      const lax = await oidcOf({ store, onTestFinished }, { requireMfa: false });
      lax.provider.people.set('dan', { groups: ['dea-admins'], amr: ['pwd'] });
      expect(await lax.refusalOf('dan')).toBe('signed in');
    },
  );

  storeTest.concurrent(
    "a name another console account has is not taken over, and a disabled account's person is refused",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const local = {
        username: usernameOrThrow('fay'),
        displayName: 'Fay',
        role: 'admin' as const,
        scope: null,
      };
      await t.accounts.add({ ...local, passwordHash: 'a local hash' }, 'cli');
      t.provider.people.set('fay', { groups: ['it-helpdesk'], amr: ['mfa'] });
      expect(await t.refusalOf('fay')).toBe('username-taken');
      expect(await store.console.findAccountByUsername(usernameOrThrow('fay'))).toMatchObject({
        role: 'admin',
        passwordHash: 'a local hash',
      });

      t.provider.people.set('gil', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const { account } = await t.signIn('gil');
      await t.accounts.setDisabled(account, true, 'cli');
      expect(await t.refusalOf('gil')).toBe('disabled');
      expect((await t.refusals()).map((details) => [details.reason, details.subject])).toEqual([
        ['disabled', 'gil'],
        ['username-taken', 'fay'],
      ]);
    },
  );

  storeTest.concurrent(
    'a sign-in again asks the provider for a new login, and is refused when the authentication is older than two minutes',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('hana', { groups: ['it-helpdesk'], amr: ['mfa'] });
      const { url } = await t.answerOf('hana', true);
      expect(url.searchParams.get('prompt')).toBe('login');
      expect(url.searchParams.get('max_age')).toBe('0');
      // A provider that keeps its session's old authentication despite prompt=login and max_age=0.
      t.provider.clock = () => t.clock.at - 2 * MINUTE - 1000;
      expect(await t.refusalOf('hana', true)).toBe('token-refused');
      expect((await t.refusals())[0]).toMatchObject({
        reason: 'token-refused',
        subject: 'hana',
        authTime: expect.any(Number),
      });
      t.provider.clock = () => t.clock.at - 2 * MINUTE;
      expect(await t.refusalOf('hana', true)).toBe('signed in');
    },
  );

  storeTest.concurrent(
    'a provider that cannot be used is refused as unavailable, audited and warned naming the setting',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished }, { issuer: 'http://127.0.0.1:1/realms/none' });
      await expect(t.oidc.start(ADDRESS)).rejects.toMatchObject({ reason: 'provider-unavailable' });
      expect(await t.refusals()).toMatchObject([
        {
          stage: 'signin',
          reason: 'provider-unavailable',
          message: expect.stringContaining('check DEA_CONSOLE_OIDC_ISSUER'),
        },
      ]);
      expect(t.warnings).toEqual([
        expect.stringContaining('DEA_CONSOLE_OIDC_ISSUER=http://127.0.0.1:1/realms/none'),
      ]);
    },
  );
});

describe.each(STORE_KINDS)("a provider session's role taken again on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "the session's role stands until the refresh time; then a changed group changes it for requests at once, audited once",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const ivo = { groups: ['dea-admins'], amr: ['mfa'] };
      t.provider.people.set('ivo', ivo);
      const signedIn = await t.signIn('ivo');
      ivo.groups = ['it-helpdesk'];
      t.clock.at = T0 + REFRESH_SECONDS * 1000 - 1;
      expect(await signedIn.current()).toMatchObject({ provider: true, account: { role: 'admin' } });
      t.clock.at = T0 + REFRESH_SECONDS * 1000;
      const together = await Promise.all(Array.from({ length: 5 }, () => signedIn.current()));
      expect(together.map((each) => each?.account.role)).toEqual(Array.from({ length: 5 }, () => 'helpdesk'));
      expect(await store.audit.list({ event: 'console.oidc_role_changed' })).toMatchObject([
        { actor: 'console:ivo', details: { from: 'admin', to: 'helpdesk', claimValues: ['it-helpdesk'] } },
      ]);
      expect((await store.console.findAccountById(signedIn.account.id))?.role).toBe('helpdesk');
    },
  );

  storeTest.concurrent(
    "a role map's scope comes with the role: lifted by a group without one, back when that group goes",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const jo = { groups: ['staff', 'helpdesk-eu'], amr: ['mfa'] };
      t.provider.people.set('jo', jo);
      const signedIn = await t.signIn('jo');
      expect(signedIn.account.scope).toEqual(['Staff EU']);
      jo.groups = ['helpdesk-eu', 'it-helpdesk'];
      t.clock.at += REFRESH_SECONDS * 1000;
      expect((await signedIn.current())?.account).toMatchObject({ role: 'helpdesk', scope: null });
      jo.groups = ['helpdesk-eu'];
      t.clock.at += REFRESH_SECONDS * 1000;
      expect((await signedIn.current())?.account.scope).toEqual(['Staff EU']);
      expect(
        (await store.audit.list({ event: 'console.oidc_role_changed' })).map((entry) => entry.details),
      ).toMatchObject([
        { from: 'helpdesk', to: 'helpdesk', fromScope: null, toScope: ['Staff EU'] },
        { from: 'helpdesk', to: 'helpdesk', fromScope: ['Staff EU'], toScope: null },
      ]);
    },
  );

  storeTest.concurrent(
    'no mapped group at the refresh ends the session, audited; a local session is answered as it is',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const kai = { groups: ['auditors'], amr: ['mfa'] };
      t.provider.people.set('kai', kai);
      const signedIn = await t.signIn('kai');
      kai.groups = ['staff'];
      t.clock.at = T0 + REFRESH_SECONDS * 1000;
      expect(await signedIn.current()).toBeUndefined();
      expect((await store.console.findSession(signedIn.session.idHash))?.endedAt).toBe(t.clock.at);
      expect(await t.refusals()).toMatchObject([
        { stage: 'refresh', reason: 'unmapped', claimValues: ['staff'] },
      ]);
      const local = { ...signedIn.session, idHash: 'a local session' };
      expect(await t.oidc.current(local, signedIn.account)).toEqual({
        account: signedIn.account,
        provider: false,
      });
    },
  );

  storeTest.concurrent(
    "signing out has the provider revoke the session's refresh token; a session without one revokes nothing",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('lou', { groups: ['dea-admins'], amr: ['mfa'] });
      const { session } = await t.signIn('lou');
      expect(t.provider.destroyedRefreshTokens).toEqual([]);
      expect(await t.oidc.revokeAtSignOut(session.idHash)).toBe(true);
      expect(t.provider.destroyedRefreshTokens).toHaveLength(1);
      expect(await t.oidc.revokeAtSignOut('a local session')).toBe(false);
      // Revoked: the role cannot be taken again with it, and the session ends at the refresh.
      t.clock.at = T0 + REFRESH_SECONDS * 1000;
      const account = await store.console.findAccountById(session.accountId);
      expect(await t.oidc.current(session, account!)).toBeUndefined();
      expect((await t.refusals())[0]).toMatchObject({ stage: 'refresh', reason: 'refresh-failed' });
    },
  );
});
