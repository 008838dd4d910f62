import { describe, expect } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';

interface Shown {
  id: string;
  username: string;
  role: string;
  scope: string[] | null;
  source: string;
  disabled: boolean;
  lastSignInAt: string | null;
  passkeys: { credentialId: string; name: string | null }[];
}

async function accountNamed(
  admin: Awaited<ReturnType<typeof consoleAgent>>,
  username: string,
): Promise<Shown> {
  const { accounts } = (await admin.get('/admin/console-accounts')).json<{ result: { accounts: Shown[] } }>()
    .result;
  const found = accounts.find((account) => account.username === username);
  if (found === undefined) throw new Error(`no account ${username}`);
  return found;
}

/** Passkeys as a registration stores them (the ceremony itself runs in Chromium: console-passkey.spec.ts). */
async function givePasskeys(t: TestApp, accountId: string, ids: string[]) {
  for (const credentialId of ids)
    await t.services.store.console.addPasskey({
      credentialId,
      accountId,
      publicKey: 'AA',
      counter: 0,
      transports: [],
      createdAt: t.clock.now(),
      lastUsedAt: null,
    });
}

describe.each(STORE_KINDS)('console accounts in the console on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "an administrator sees each account's role, source and last sign-in, changes a role and scope, disables and enables",
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const agent = await consoleAgent(t, BASE, 'helpdesk');
      expect(await accountNamed(admin, agent.username)).toMatchObject({
        role: 'helpdesk',
        scope: null,
        source: 'local',
        disabled: false,
        lastSignInAt: new Date(t.clock.now()).toISOString(),
        passkeys: [],
      });
      const { id } = await accountNamed(admin, agent.username);
      expect((await agent.get('/admin/console-accounts')).statusCode).toBe(403);

      expect(
        (
          await admin.post(`/admin/console-accounts/${id}/role`, { role: 'auditor', scope: ['Staff EU'] })
        ).json(),
      ).toMatchObject({ error: 0 });
      expect(await accountNamed(admin, agent.username)).toMatchObject({
        role: 'auditor',
        scope: ['Staff EU'],
      });
      // From the account's next request on.
      expect((await agent.get('/me')).json()).toMatchObject({ result: { role: 'auditor' } });
      expect(
        (await admin.post(`/admin/console-accounts/${id}/role`, { role: 'admin', scope: ['Staff EU'] }))
          .statusCode,
      ).toBe(400);

      expect((await admin.post(`/admin/console-accounts/${id}/disable`)).json()).toMatchObject({
        result: { sessionsEnded: 1 },
      });
      expect((await agent.get('/me')).statusCode).toBe(401);
      expect((await admin.post(`/admin/console-accounts/${id}/enable`)).json()).toMatchObject({ error: 0 });
      expect(await accountNamed(admin, agent.username)).toMatchObject({ disabled: false });
      // Never oneself.
      const self = await accountNamed(admin, admin.username);
      expect((await admin.post(`/admin/console-accounts/${self.id}/disable`)).statusCode).toBe(409);

      // A new account, with the enrolment link as dea admin add prints it; its password signs in.
      const added = await admin.post('/admin/console-accounts', {
        username: 'Nora',
        displayName: 'Nora New',
        role: 'helpdesk',
        scope: ['Staff EU'],
        password: 'a console password',
      });
      expect(added.json()).toMatchObject({ result: { url: expect.stringMatching(/#enrol=/) } });
      expect(await accountNamed(admin, 'nora')).toMatchObject({
        role: 'helpdesk',
        scope: ['Staff EU'],
        passkeys: [],
      });
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: `${BASE}/session`,
            payload: { username: 'nora', password: 'a console password' },
          })
        ).json(),
      ).toMatchObject({ result: { next: 'register-passkey' } });
      expect(
        (
          await admin.post('/admin/console-accounts', {
            username: 'nora',
            role: 'auditor',
            scope: null,
            password: 'another password',
          })
        ).statusCode,
      ).toBe(409);

      // An account of the OpenID provider takes its role from its groups there.
      await t.services.store.console.createAccount({
        id: 'provider-person',
        username: 'pat' as never,
        displayName: 'Pat',
        role: 'helpdesk',
        passwordHash: '',
        createdAt: t.clock.now(),
      });
      const refused = await admin.post('/admin/console-accounts/provider-person/role', {
        role: 'admin',
        scope: null,
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json<{ message: string }>().message).toMatch(/DEA_CONSOLE_OIDC_ROLES/);
    },
  );

  appTest(
    'passkeys one by one: named, removed but never the last (in parallel too), and a lost one replaced by another administrator',
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const agent = await consoleAgent(t, BASE, 'helpdesk');
      const { id } = await accountNamed(admin, agent.username);
      await givePasskeys(t, id, ['key-one', 'key-two', 'key-three']);

      expect(
        (
          await admin.post(`/admin/console-accounts/${id}/passkeys/name`, {
            credentialId: 'key-two',
            name: ' Backup key ',
          })
        ).json(),
      ).toMatchObject({ error: 0 });
      expect((await accountNamed(admin, agent.username)).passkeys).toEqual([
        expect.objectContaining({ credentialId: 'key-one', name: null }),
        expect.objectContaining({ credentialId: 'key-two', name: 'Backup key' }),
        expect.objectContaining({ credentialId: 'key-three', name: null }),
      ]);
      expect(
        (
          await admin.post(`/admin/console-accounts/${id}/passkeys/remove`, { credentialId: 'key-one' })
        ).json(),
      ).toMatchObject({ error: 0 });
      // The last two removed at once: one goes, the other stays.
      const both = await Promise.all(
        ['key-two', 'key-three'].map((credentialId) =>
          admin.post(`/admin/console-accounts/${id}/passkeys/remove`, { credentialId }),
        ),
      );
      expect(both.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
      expect((await accountNamed(admin, agent.username)).passkeys).toHaveLength(1);
      expect(
        (await admin.post(`/admin/console-accounts/${id}/passkeys/remove`, { credentialId: 'nobody' }))
          .statusCode,
      ).toBe(404);

      // A lost device: replaced through the same rule as dea admin reset-passkeys.
      const reset = await admin.post(`/admin/console-accounts/${id}/passkeys/reset`);
      expect(reset.json()).toMatchObject({ result: { removed: 1, url: expect.stringMatching(/#enrol=/) } });
      expect((await accountNamed(admin, agent.username)).passkeys).toEqual([]);
      expect((await agent.get('/me')).statusCode).toBe(401);
      expect(
        await t.services.store.audit.list({ event: 'console.enrolment_link_issued', limit: 1 }),
      ).toMatchObject([{ actor: `console:${admin.username}`, details: { username: agent.username } }]);
    },
  );
});
