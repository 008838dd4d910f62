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
});
