import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { ConsoleAccount, ConsoleRole, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ConsoleAccounts } from './console-accounts.js';
import { ConsoleEnrolment } from '../console/console-enrolment.js';
import { RuleError } from '../rule-error.js';

const T0 = Date.UTC(2026, 0, 5, 9);

function accountsOf(store: Store): ConsoleAccounts {
  const enrolment = new ConsoleEnrolment({
    store,
    keys: [Buffer.alloc(32, 7)],
    settings: { consoleUrl: 'https://dea.example.org/dea/console/', enrolmentLinkMs: 3_600_000 },
    now: () => T0,
  });
  return new ConsoleAccounts({ store, enrolment, now: () => T0 });
}

/** A console account as a sign-in elsewhere leaves it (no password), or a local one. */
async function accountOf(
  store: Store,
  username: string,
  role: ConsoleRole,
  passwordHash = 'hash-0',
): Promise<ConsoleAccount> {
  const account: ConsoleAccount = {
    id: newId(T0),
    username: usernameOrThrow(username),
    displayName: username,
    role,
    passwordHash,
    disabled: false,
    createdAt: T0,
    scope: null,
  };
  await store.console.createAccount(account);
  await store.console.createSession({
    idHash: `session-${username}`,
    accountId: account.id,
    xsrfHash: `xsrf-${username}`,
    createdAt: T0,
    lastSeenAt: T0,
  });
  return account;
}

describe.each(STORE_KINDS)('console accounts on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    "an account of the OpenID provider or the directory keeps its scope: its groups' (refused, naming the owner, nothing written)",
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const provider = await accountOf(store, 'pia', 'helpdesk', '');
      const directory = await accountOf(store, 'dirk', 'auditor', '');
      await store.consoleDirectory.linkAccount('cn=dirk', directory.id);

      await expect(accounts.setScope(provider, ['VPN'], 'cli')).rejects.toThrow(
        new RuleError(
          "pia's scope comes from the OpenID provider (DEA_CONSOLE_OIDC_ROLES); change their groups there",
          'owned',
        ),
      );
      await expect(accounts.setScope(directory, null, 'cli')).rejects.toThrow(
        "dirk's scope comes from the directory (DEA_CONSOLE_LDAP_ROLES); change their groups there",
      );
      expect((await store.console.findAccountById(provider.id))?.scope).toBeNull();
      expect(await store.audit.list({ event: 'console.account_changed' })).toEqual([]);

      const local = await accountOf(store, 'lou', 'helpdesk');
      await accounts.setScope(local, ['VPN'], 'cli');
      expect((await store.console.findAccountById(local.id))?.scope).toEqual(['VPN']);
      await expect(accounts.setScope({ ...local, role: 'admin' }, ['VPN'], 'cli')).rejects.toThrow(
        'a scope limits only helpdesk or auditor, not admin',
      );
      expect(await store.audit.list({ event: 'console.account_changed' })).toMatchObject([
        { actor: 'cli', details: { username: 'lou', change: 'scope', scope: ['VPN'] } },
      ]);
    },
  );

  storeTest(
    "a password set ends the account's sessions, a removal takes its sessions, each with its audit entry",
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin');
      expect(await accounts.setPassword(lou, 'hash-1', 'cli')).toEqual({ sessionsEnded: 1 });
      expect(await store.console.findAccountById(lou.id)).toMatchObject({ passwordHash: 'hash-1' });
      expect((await store.console.findSession('session-lou'))?.endedAt).toBe(T0);

      await accounts.remove(lou, 'cli');
      expect(await store.console.findAccountById(lou.id)).toBeUndefined();
      expect(await store.audit.list({ limit: 10 })).toMatchObject([
        { event: 'console.account_removed', actor: 'cli', details: { username: 'lou', role: 'admin' } },
        {
          event: 'console.account_changed',
          actor: 'cli',
          details: { username: 'lou', change: 'password', sessionsEnded: 1 },
        },
      ]);
    },
  );
  storeTest(
    'a passkey registered commits with its audit entry; its use counts only a counter that moved on',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin');
      const passkey = {
        credentialId: 'cred-lou',
        publicKey: 'key',
        counter: 3,
        transports: ['usb'],
        createdAt: T0,
        lastUsedAt: T0,
      };
      await accounts.addPasskey(lou, passkey, { role: 'admin', aaguid: 'model' });
      expect(await store.console.listPasskeys(lou.id)).toMatchObject([{ ...passkey, accountId: lou.id }]);
      expect(await store.audit.list({ event: 'console.passkey_registered' })).toMatchObject([
        { actor: 'console:lou', details: { role: 'admin', aaguid: 'model', credentialId: 'cred-lou' } },
      ]);
      // The same credential again: nothing written, no second entry.
      await expect(accounts.addPasskey(lou, passkey, { role: 'admin' })).rejects.toThrow();
      expect(await store.audit.list({ event: 'console.passkey_registered' })).toHaveLength(1);

      expect(await accounts.usePasskey('cred-lou', 3, T0 + 1)).toBe(false);
      expect(await accounts.usePasskey('cred-lou', 4, T0 + 2)).toBe(true);
      expect(await store.console.findPasskey('cred-lou')).toMatchObject({ counter: 4, lastUsedAt: T0 + 2 });
    },
  );

  storeTest(
    'an account made at a sign-in elsewhere is linked to its provider subject or directory entry in its transaction',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const grant = { role: 'helpdesk' as const, scope: null };
      const pia = await accounts.addSignedInElsewhere(
        { username: usernameOrThrow('pia'), displayName: 'Pia', grant },
        { provider: { issuer: 'https://idp.example.org', subject: 'sub-pia' } },
        { issuer: 'https://idp.example.org' },
        T0,
      );
      expect(await store.consoleOidc.findAccountIdOf('https://idp.example.org', 'sub-pia')).toBe(pia.id);
      expect(await accounts.sourceOf(pia)).toBe('provider');

      const dirk = await accounts.addSignedInElsewhere(
        { username: usernameOrThrow('dirk'), displayName: 'Dirk', grant },
        { directory: { externalId: 'entry-dirk' } },
        { source: 'directory' },
        T0,
      );
      expect(await store.consoleDirectory.findAccountIdOf('entry-dirk')).toBe(dirk.id);
      expect(await accounts.sourceOf(dirk)).toBe('directory');

      // A second account for the same subject: the link refuses it, and no account is left behind.
      await expect(
        accounts.addSignedInElsewhere(
          { username: usernameOrThrow('pia2'), displayName: 'Pia', grant },
          { provider: { issuer: 'https://idp.example.org', subject: 'sub-pia' } },
          {},
          T0,
        ),
      ).rejects.toThrow();
      expect(await store.console.findAccountByUsername(usernameOrThrow('pia2'))).toBeUndefined();
      expect(await store.audit.list({ event: 'console.account_created' })).toMatchObject([
        { actor: 'console:dirk', details: { username: 'dirk', role: 'helpdesk', source: 'directory' } },
        {
          actor: 'console:pia',
          details: { username: 'pia', role: 'helpdesk', issuer: 'https://idp.example.org' },
        },
      ]);
    },
  );
});
