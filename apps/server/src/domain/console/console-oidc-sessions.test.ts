import { describe, type TestContext } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { startOidcProvider } from '../../testing/oidc-provider.js';
import { STORE_KINDS } from '../../testing/stores.js';
import {
  CONSOLE_T0 as T0,
  consoleOidcOf,
  consoleSignInOf,
  OIDC_REDIRECT_URI,
  OIDC_REFRESH_SECONDS as REFRESH_SECONDS,
} from '../../testing/console-domain.js';

const MINUTE = 60_000;

/** The console's sign-in with a real OpenID provider, started in this process for the test alone. */
async function oidcOf(
  { store, onTestFinished }: { store: Store; onTestFinished: TestContext['onTestFinished'] },
  options: { requireAuthTime?: boolean } = {},
) {
  const provider = await startOidcProvider(OIDC_REDIRECT_URI, options);
  onTestFinished(() => provider.close());
  return consoleOidcOf(store, provider);
}

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
    'of two instances taking the role again at once, the first kept stands for both and the session goes on',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const noa = { groups: ['dea-admins'], amr: ['mfa'] };
      t.provider.people.set('noa', noa);
      const { session, account } = await t.signIn('noa');
      // A second instance of the server: the same store and provider, refreshes of its own.
      const other = consoleOidcOf(store, t.provider);
      noa.groups = ['auditors'];
      t.clock.at = T0 + REFRESH_SECONDS * 1000;
      other.clock.at = t.clock.at;
      const answers = await Promise.all([
        t.oidc.current(session, account),
        other.oidc.current(session, account),
      ]);
      expect(answers.map((answer) => answer?.account.role)).toEqual(['auditor', 'auditor']);
      expect(await store.audit.list({ event: 'console.oidc_role_changed' })).toHaveLength(1);
      expect(await t.refusals()).toEqual([]);
      expect((await store.console.findSession(session.idHash))?.endedAt).toBeNull();
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
    "a provider session's requests are signed in with the provider's factor and take the role again; without a mapped group they are not signed in",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      const { auth } = consoleSignInOf(store, { oidc: t });
      const mia = { groups: ['dea-admins'], amr: ['mfa'] };
      t.provider.people.set('mia', mia);
      const { query, browserToken } = await t.answerOf('mia');
      const { sessionId, xsrfToken } = await t.oidc.finish(query, browserToken, '198.51.100.9');
      expect(await auth.caller(sessionId, xsrfToken, true)).toMatchObject({
        signedInWith: 'provider',
        passkeyVerified: true,
        account: { username: 'mia', role: 'admin' },
      });
      mia.groups = ['auditors'];
      t.clock.at = T0 + REFRESH_SECONDS * 1000;
      expect((await auth.caller(sessionId, undefined, false)).account.role).toBe('auditor');
      mia.groups = [];
      t.clock.at += REFRESH_SECONDS * 1000;
      await expect(auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      await expect(auth.caller(sessionId, undefined, false)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      // Signed out, the provider is asked to revoke the session's refresh token, and the trail says it did.
      mia.groups = ['dea-admins'];
      const other = await t.answerOf('mia');
      const again = await t.oidc.finish(other.query, other.browserToken, '198.51.100.9');
      await auth.signOut(await auth.caller(again.sessionId, again.xsrfToken, true));
      expect((await store.audit.list({ event: 'console.signout' }))[0]?.details).toEqual({
        role: 'admin',
        refreshTokenRevoked: true,
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

describe.each(STORE_KINDS)("the age of a provider session's second factor on %s", (kind) => {
  storeTest.override('storeKind', kind);

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
    "a silent sign-in through the provider's session is as old as its authentication there, until a sign-in again authenticates anew",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('ivo', { groups: ['it-helpdesk'], amr: ['pwd', 'otp'] });
      const browser = t.provider.browser();
      await t.signIn('ivo', false, browser);
      expect(t.provider.logins).toEqual(['ivo']);
      // Forty minutes on, the provider lets the same browser through without a login.
      t.clock.at = T0 + 40 * MINUTE;
      const silent = await t.signIn('ivo', false, browser);
      expect(t.provider.logins).toEqual(['ivo']);
      expect(silent.session).toMatchObject({ passkeyAt: T0, lastSeenAt: T0 + 40 * MINUTE });
      expect((await store.audit.list({ event: 'console.oidc_signin', limit: 1 }))[0]?.details).toMatchObject({
        authenticatedAt: new Date(T0).toISOString(),
      });
      const again = await t.signIn('ivo', true, browser);
      expect(t.provider.logins).toEqual(['ivo', 'ivo']);
      expect(again.session.passkeyAt).toBe(T0 + 40 * MINUTE);
    },
  );

  storeTest.concurrent(
    'an ID token that does not say when the person authenticated signs in with a second factor never fresh, until a sign-in again says it',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished }, { requireAuthTime: false });
      t.provider.people.set('kai', { groups: ['it-helpdesk'], amr: ['pwd', 'hwk'] });
      const first = await t.signIn('kai');
      expect(first.session).toMatchObject({ passkeyAt: 0, lastSeenAt: T0 });
      expect(await store.audit.list({ event: 'console.oidc_signin' })).toMatchObject([
        { details: { authenticatedAt: null } },
      ]);
      // max_age makes auth_time required (OpenID Connect Core 3.1.2.1).
      expect((await t.signIn('kai', true)).session.passkeyAt).toBe(T0);
    },
  );
});
