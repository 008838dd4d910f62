import { CONSOLE_ENROLMENT_FRAGMENT, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { ConsoleAccount, ConsoleRole, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ConsoleEnrolment } from '../console/console-enrolment.js';
import { ConsoleAccounts } from './console-accounts.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const LINK_MS = 3_600_000;
const CONSOLE_URL = 'https://dea.example.org/dea/console/';

function accountsOf(store: Store): ConsoleAccounts {
  const enrolment = new ConsoleEnrolment({
    store,
    keys: [Buffer.alloc(32, 7)],
    settings: { consoleUrl: CONSOLE_URL, enrolmentLinkMs: LINK_MS },
    now: () => T0,
  });
  return new ConsoleAccounts({ store, enrolment, now: () => T0 });
}

/** A local console account with an open session and `passkeys` passkeys. */
async function accountOf(
  store: Store,
  username: string,
  role: ConsoleRole,
  passkeys = 0,
): Promise<ConsoleAccount> {
  const account: ConsoleAccount = {
    id: newId(T0),
    username: usernameOrThrow(username),
    displayName: username,
    role,
    passwordHash: 'hash-0',
    disabled: false,
    createdAt: T0,
    scope: null,
  };
  await store.console.createAccount(account);
  await store.console.createSession({
    idHash: `session-${username}`,
    accountId: account.id,
    xsrfHash: 'xsrf',
    createdAt: T0,
    lastSeenAt: T0,
  });
  for (let index = 0; index < passkeys; index += 1)
    await store.console.addPasskey({
      accountId: account.id,
      credentialId: `cred-${username}-${index}`,
      publicKey: 'key',
      counter: 0,
      transports: [],
      createdAt: T0,
      lastUsedAt: null,
    });
  return account;
}

const changesOf = async (store: Store) =>
  (await store.audit.list({ event: 'console.account_changed', limit: 100 })).map((entry) => ({
    actor: entry.actor,
    details: entry.details,
  }));

const newAccount = (username: string, role: ConsoleRole, scope: readonly string[] | null = null) => ({
  username: usernameOrThrow(username),
  displayName: username,
  role,
  scope,
  passwordHash: 'hash-secret',
});

describe.each(STORE_KINDS)('console accounts changed on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a new account comes with its enrolment link, audited with its role and scope, never its password hash',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const { account, link } = await accounts.add(
        newAccount('hilde', 'helpdesk', [' VPN ', 'Staff', 'VPN']),
        'cli',
      );
      expect(account).toMatchObject({ role: 'helpdesk', scope: ['VPN', 'Staff'], disabled: false });
      expect(await store.console.findAccountById(account.id)).toMatchObject({ scope: ['VPN', 'Staff'] });
      expect(link.url.startsWith(`${CONSOLE_URL}#${CONSOLE_ENROLMENT_FRAGMENT}`)).toBe(true);
      expect(link.expiresAt).toBe(T0 + LINK_MS);
      const entries = await store.audit.list({ limit: 10 });
      expect(entries.map((entry) => entry.event).sort()).toEqual([
        'console.account_created',
        'console.enrolment_link_issued',
      ]);
      expect(entries.find((entry) => entry.event === 'console.account_created')).toMatchObject({
        actor: 'cli',
        details: { username: 'hilde', role: 'helpdesk', scope: ['VPN', 'Staff'] },
      });
      expect(JSON.stringify(entries)).not.toContain('hash-secret');
    },
  );

  storeTest.concurrent(
    'a name taken is refused as a conflict, and nothing is written',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      await accounts.add(newAccount('hilde', 'admin'), 'cli');
      const before = await store.audit.list({ limit: 10 });
      await expect(accounts.add(newAccount('hilde', 'auditor'), 'cli')).rejects.toMatchObject({
        kind: 'conflict',
        message: 'a console account named "hilde" already exists',
      });
      expect((await store.console.findAccountByUsername(usernameOrThrow('hilde')))?.role).toBe('admin');
      expect(await store.audit.list({ limit: 10 })).toEqual(before);
    },
  );

  storeTest.concurrent(
    'a scope limits only a help-desk agent or an auditor, and names at least one group',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      await expect(accounts.add(newAccount('ada', 'admin', ['VPN']), 'cli')).rejects.toThrow(
        'scope: a scope limits only helpdesk or auditor, not admin',
      );
      await expect(accounts.add(newAccount('hans', 'helpdesk', ['  ', '']), 'cli')).rejects.toThrow(
        'scope: a scope names at least one group',
      );
      expect(await store.audit.list({ limit: 10 })).toEqual([]);
      const auditor = await accountOf(store, 'aud', 'auditor');
      await expect(accounts.setRole(auditor, 'admin', ['VPN'], 'cli')).rejects.toThrow(/not admin/);
      expect((await store.console.findAccountById(auditor.id))?.role).toBe('auditor');
    },
  );

  storeTest.concurrent(
    "a local account's role and scope change together, audited; another source's are refused naming it",
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin');
      await accounts.setRole(lou, 'auditor', ['Staff'], 'console:root');
      expect(await store.console.findAccountById(lou.id)).toMatchObject({
        role: 'auditor',
        scope: ['Staff'],
      });
      expect(await changesOf(store)).toEqual([
        { actor: 'console:root', details: { username: 'lou', role: 'auditor', scope: ['Staff'] } },
      ]);
      const pia = await accountOf(store, 'pia', 'helpdesk');
      await store.console.updateAccount(pia.id, { passwordHash: '' });
      await expect(
        accounts.setRole({ ...pia, passwordHash: '' }, 'admin', null, 'cli'),
      ).rejects.toMatchObject({
        kind: 'owned',
        message:
          "pia's role comes from the OpenID provider (DEA_CONSOLE_OIDC_ROLES); change their groups there",
      });
      expect((await store.console.findAccountById(pia.id))?.role).toBe('helpdesk');
      expect(await changesOf(store)).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'disabling ends the sessions at once, enabling ends none; an administrator never disables themselves',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin');
      await expect(accounts.setDisabled(lou, true, 'console:lou')).rejects.toMatchObject({
        kind: 'conflict',
        message: 'an administrator cannot disable their own account',
      });
      expect((await store.console.findSession('session-lou'))?.endedAt).toBeNull();
      expect(await changesOf(store)).toEqual([]);

      expect(await accounts.setDisabled(lou, true, 'console:root')).toEqual({ sessionsEnded: 1 });
      expect((await store.console.findAccountById(lou.id))?.disabled).toBe(true);
      expect((await store.console.findSession('session-lou'))?.endedAt).toBe(T0);
      // Enabling oneself is no risk: only the disabling is refused.
      expect(await accounts.setDisabled(lou, false, 'console:lou')).toEqual({ sessionsEnded: 0 });
      expect((await store.console.findAccountById(lou.id))?.disabled).toBe(false);
      expect((await changesOf(store)).reverse()).toEqual([
        { actor: 'console:root', details: { username: 'lou', change: 'disabled', sessionsEnded: 1 } },
        { actor: 'console:lou', details: { username: 'lou', change: 'enabled', sessionsEnded: 0 } },
      ]);
    },
  );

  storeTest.concurrent(
    'a passkey is named trimmed and cut at 64 characters, or unnamed when blank; one not there is missing, nothing audited',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin', 1);
      const nameOf = async () => (await store.consolePasskeys.list(lou.id))[0]?.name;
      await accounts.renamePasskey(lou, 'cred-lou-0', `  ${'k'.repeat(70)} `, 'cli');
      expect(await nameOf()).toBe('k'.repeat(64));
      await accounts.renamePasskey(lou, 'cred-lou-0', '   ', 'cli');
      expect(await nameOf()).toBeNull();
      await expect(accounts.renamePasskey(lou, 'cred-other', 'Key', 'cli')).rejects.toMatchObject({
        kind: 'missing',
      });
      expect((await changesOf(store)).map((change) => change.details.name)).toEqual([null, 'k'.repeat(64)]);
    },
  );

  storeTest.concurrent(
    "a passkey is removed one at a time, never the account's last; one not there is missing",
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin', 2);
      await accounts.removePasskey(lou, 'cred-lou-0', 'cli');
      await expect(accounts.removePasskey(lou, 'cred-lou-1', 'cli')).rejects.toMatchObject({
        kind: 'conflict',
        message: expect.stringMatching(/^a console account's last passkey is not removed/),
      });
      await expect(accounts.removePasskey(lou, 'cred-lou-0', 'cli')).rejects.toMatchObject({
        kind: 'missing',
      });
      expect((await store.consolePasskeys.list(lou.id)).map((passkey) => passkey.credentialId)).toEqual([
        'cred-lou-1',
      ]);
      expect(await changesOf(store)).toEqual([
        { actor: 'cli', details: { username: 'lou', change: 'passkey removed', credentialId: 'cred-lou-0' } },
      ]);
    },
  );

  storeTest.concurrent(
    'a lost passkey is replaced: every passkey removed, the sessions ended, a new enrolment link',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin', 2);
      const reset = await accounts.resetPasskeys(lou, 'console:root');
      expect(reset).toMatchObject({ removed: 2, sessionsEnded: 1, link: { expiresAt: T0 + LINK_MS } });
      expect(await store.consolePasskeys.list(lou.id)).toEqual([]);
      expect((await store.console.findSession('session-lou'))?.endedAt).toBe(T0);
      expect(await changesOf(store)).toEqual([
        {
          actor: 'console:root',
          details: { username: 'lou', change: 'passkeys removed', removed: 2, sessionsEnded: 1 },
        },
      ]);
      expect(await store.audit.list({ event: 'console.enrolment_link_issued' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'a sign-in elsewhere writes the role and scope its groups grant only when they differ, audited as the person',
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const pia = await accountOf(store, 'pia', 'helpdesk');
      const entry = (from: ConsoleRole) => ({
        event: 'console.oidc_role_changed' as const,
        from,
        details: { issuer: 'https://idp.example.org' },
      });
      expect(
        await accounts.takeGrant(store, pia, { role: 'helpdesk', scope: null }, T0, entry('helpdesk')),
      ).toBe(false);
      expect(await store.audit.list({ limit: 10 })).toEqual([]);

      expect(
        await accounts.takeGrant(store, pia, { role: 'auditor', scope: ['EU'] }, T0, entry('helpdesk')),
      ).toBe(true);
      expect(await store.console.findAccountById(pia.id)).toMatchObject({ role: 'auditor', scope: ['EU'] });
      expect(await store.audit.list({ limit: 10 })).toMatchObject([
        {
          event: 'console.oidc_role_changed',
          actor: 'console:pia',
          details: {
            from: 'helpdesk',
            to: 'auditor',
            fromScope: null,
            toScope: ['EU'],
            issuer: 'https://idp.example.org',
          },
        },
      ]);
      // Without an entry to write (a refresh), the role is written and nothing is audited.
      const now = (await store.console.findAccountById(pia.id))!;
      expect(await accounts.takeGrant(store, now, { role: 'helpdesk', scope: ['EU'] }, T0)).toBe(true);
      expect(await store.audit.list({ limit: 10 })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "an account's overview says where it signs in and its passkeys",
    async ({ testStore: { store }, expect }) => {
      const accounts = accountsOf(store);
      const lou = await accountOf(store, 'lou', 'admin', 1);
      expect(await accounts.overview(lou)).toMatchObject({
        source: 'local',
        lastSignInAt: null,
        passkeys: [{ credentialId: 'cred-lou-0', name: null, createdAt: T0, lastUsedAt: null }],
      });
      const dirk = await accountOf(store, 'dirk', 'auditor');
      await store.consoleDirectory.linkAccount('entry-dirk', dirk.id);
      expect((await accounts.overview(dirk)).source).toBe('directory');
    },
  );
});
