import { usernameOrThrow } from '@dea/contract';
import { describe, type TestContext } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { startOidcProvider } from '../../testing/oidc-provider.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { OIDC_FLOW_MS } from './console-oidc.js';
import {
  CONSOLE_T0 as T0,
  type ConsoleOidcTestSettings,
  consoleOidcOf,
  OIDC_ADDRESS as ADDRESS,
  OIDC_REDIRECT_URI as REDIRECT_URI,
} from '../../testing/console-domain.js';

/** The console's sign-in with a real OpenID provider, started in this process for the test alone. */
async function oidcOf(
  { store, onTestFinished }: { store: Store; onTestFinished: TestContext['onTestFinished'] },
  settings: ConsoleOidcTestSettings = {},
) {
  const provider = await startOidcProvider(REDIRECT_URI);
  onTestFinished(() => provider.close());
  return consoleOidcOf(store, provider, settings);
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
      // Four at once in its own browser, at the flow's last millisecond: one signs in.
      t.clock.at = T0 + OIDC_FLOW_MS;
      const replays = await Promise.all(
        Array.from({ length: 4 }, () =>
          t.oidc.finish(query, browserToken, ADDRESS).then(
            () => 'signed in',
            (error: { reason?: string }) => error.reason,
          ),
        ),
      );
      expect(replays.sort()).toEqual(['signed in', 'state-unknown', 'state-unknown', 'state-unknown']);

      const late = await t.answerOf('ben');
      t.clock.at += OIDC_FLOW_MS + 1;
      await expect(t.oidc.finish(late.query, late.browserToken, ADDRESS)).rejects.toMatchObject({
        reason: 'state-unknown',
      });
      expect((await t.refusals()).map((details) => details.reason)).toEqual(
        Array.from({ length: 6 }, () => 'state-unknown'),
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
    "the account takes the person's preferred user name in its canonical form and their name, and is found again by the subject whatever name it says later",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('sub-4711', {
        groups: ['auditors'],
        amr: ['mfa'],
        preferredUsername: 'Ola.Nordmann',
        name: ' Ola Nordmann ',
      });
      const { account } = await t.signIn('sub-4711');
      expect(account).toMatchObject({
        username: 'ola.nordmann',
        displayName: 'Ola Nordmann',
        role: 'auditor',
      });
      // Found again by the provider's subject, whatever name it says now.
      t.provider.people.set('sub-4711', { groups: ['auditors'], amr: ['mfa'], preferredUsername: 'ola.n' });
      expect((await t.signIn('sub-4711')).account.id).toBe(account.id);
      expect(await store.console.listAccounts()).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "one person's first sign-in in three browsers at once makes one account, and all three sign in",
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished });
      t.provider.people.set('bo', { groups: ['auditors'], amr: ['mfa'] });
      const answers = await Promise.all(Array.from({ length: 3 }, () => t.answerOf('bo')));
      const sessions = await Promise.all(
        answers.map(({ query, browserToken }) => t.oidc.finish(query, browserToken, ADDRESS)),
      );
      expect(new Set(sessions.map((session) => session.sessionId)).size).toBe(3);
      expect(await store.console.listAccounts()).toMatchObject([{ username: 'bo', role: 'auditor' }]);
      expect(await store.audit.list({ event: 'console.account_created' })).toHaveLength(1);
      expect(await store.audit.list({ event: 'console.oidc_signin' })).toHaveLength(3);
    },
  );

  storeTest.concurrent(
    'with named acr values, an acr of them is a second factor, another is not',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const t = await oidcOf({ store, onTestFinished }, { mfaAcrValues: 'gold' });
      t.provider.people.set('gold', { groups: ['auditors'], amr: ['pwd'], acr: 'gold' });
      t.provider.people.set('silver', { groups: ['auditors'], amr: ['pwd'], acr: 'silver' });
      expect(await t.refusalOf('silver')).toBe('mfa-missing');
      expect(await t.refusalOf('gold')).toBe('signed in');
    },
  );

  storeTest.concurrent(
    'a provider whose discovery names another issuer than the one set is refused as unavailable',
    async ({ testStore: { store }, expect, onTestFinished }) => {
      const { provider } = await oidcOf({ store, onTestFinished });
      // The same provider reached under another name: its discovery document names 127.0.0.1.
      const elsewhere = consoleOidcOf(store, provider, {
        issuer: provider.issuer.replace('127.0.0.1', 'localhost'),
      });
      await expect(elsewhere.oidc.start(ADDRESS)).rejects.toMatchObject({ reason: 'provider-unavailable' });
      expect(await elsewhere.refusals()).toMatchObject([{ stage: 'signin', reason: 'provider-unavailable' }]);
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
