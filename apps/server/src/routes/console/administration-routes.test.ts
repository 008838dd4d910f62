import { POLICY_CATEGORY_HELP_DESK, POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { describe } from 'vitest';
import { API } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';

const BASE = '/dea/admin-api/admin';

type Envelope<T = Record<string, unknown>> = { error: number; message: string; result: T };

describe.each(DOOR_STORE_KINDS)('console administration on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('is for administrators past their passkey only', async ({ startApp, expect }) => {
    const t = await startApp();
    for (const role of ['helpdesk', 'auditor']) {
      const other = await consoleAgent(t, BASE, role);
      for (const url of ['/groups', '/service-keys', '/settings'])
        expect((await other.get(url)).statusCode, `${role} ${url}`).toBe(403);
      expect((await other.post('/groups', { name: 'Sneaky', priority: 1 })).statusCode).toBe(403);
      expect((await other.post('/service-keys', { name: 'sneaky', scopes: ['verify'] })).statusCode).toBe(
        403,
      );
    }
    const halfway = await consoleAgent(t, BASE, 'admin', false);
    expect((await halfway.get('/groups')).statusCode).toBe(403);
    expect(await t.services.store.groups.findByName('Sneaky')).toBeUndefined();
    expect(await t.services.store.serviceKeys.list()).toEqual([]);
  });

  appTest(
    'groups and their policies: created, listed with their effective policy, changed; a bad value 400 with the reason, an unknown category 400, an unknown group 404',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_CODE_LENGTH: '12' });
      const admin = await consoleAgent(t, BASE, 'admin');
      const created = await admin.post('/groups', { name: ' Staff ', priority: 5 });
      expect(created.json()).toMatchObject({ error: 0, result: { id: expect.any(String) } });
      const groupId = created.json<Envelope<{ id: string }>>().result.id;
      const policy = (options: Record<string, unknown>, category = POLICY_CATEGORY_SELF_SERVICE) =>
        admin.post(`/groups/${groupId}/policy`, { category, options });

      expect((await policy({ enableECode: true, codeValidityMinutes: 30 })).json()).toMatchObject({
        error: 0,
        result: { options: { enableECode: true, codeValidityMinutes: 30 } },
      });
      expect((await admin.get('/groups')).json<Envelope>().result).toMatchObject({
        defaults: { enableECode: false, codeLength: 12 },
        groups: [
          {
            id: groupId,
            name: 'Staff',
            stored: { enableECode: true, codeValidityMinutes: 30 },
            effective: { enableECode: true, codeLength: 12 },
          },
        ],
      });
      const refused = await policy({ codeLength: 3 });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<Envelope>().message).toContain('codeLength must be a whole number from 6 to 64');
      expect((await policy({}, 'Other')).statusCode).toBe(400);
      expect(
        (await admin.post('/groups/nope/policy', { category: POLICY_CATEGORY_SELF_SERVICE, options: {} }))
          .statusCode,
      ).toBe(404);
      const taken = await admin.post('/groups', { name: 'Staff', priority: 1 });
      expect(taken.statusCode).toBe(400);
      expect(taken.json<Envelope>().message).toContain('a group named "Staff" already exists');
    },
  );

  appTest(
    "a group's Help Desk policy decides which roles may give its members a code",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 5 },
      });
      const group = await t.services.store.groups.findByName(`group-${user.username}`);
      const helper = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk');
      const boss = await consoleAgent(t, '/dea/admin-api/helpdesk', 'admin');
      const issue = (who: typeof helper) =>
        who.post(`/users/${user.id}/codes`, { reason: 'Ticket 9, called back' });

      expect((await issue(helper)).json()).toMatchObject({ error: 0 });
      const narrowed = await admin.post(`/groups/${group?.id}/policy`, {
        category: POLICY_CATEGORY_HELP_DESK,
        options: { issuers: ['admin'] },
      });
      expect(narrowed.json()).toMatchObject({ error: 0, result: { options: { issuers: ['admin'] } } });
      expect((await helper.get(`/users/${user.id}`)).statusCode).toBe(403);
      expect((await issue(helper)).statusCode).toBe(403);
      expect(
        (
          await helper.post(`/users/${user.id}/codes/send`, {
            reason: 'Ticket 9, called back',
            recipient: 'x',
          })
        ).statusCode,
      ).toBe(403);
      expect((await issue(boss)).json()).toMatchObject({ error: 0 });
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(2);
    },
  );

  appTest(
    'hands a group to SCIM: administrators only, an owner that is no door 400, an unknown group 404',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      const groupId = (await admin.post('/groups', { name: 'Contractors', priority: 1 })).json<
        Envelope<{ id: string }>
      >().result.id;
      expect((await helper.post(`/groups/${groupId}/owner`, { owner: 'scim' })).statusCode).toBe(403);
      expect((await admin.post(`/groups/${groupId}/owner`, { owner: 'ldap' })).statusCode).toBe(400);
      expect((await admin.post('/groups/no-such-group/owner', { owner: 'scim' })).statusCode).toBe(404);
      expect((await admin.post(`/groups/${groupId}/owner`, { owner: 'scim' })).json()).toMatchObject({
        error: 0,
        result: { owner: 'scim' },
      });
      expect((await t.services.store.groups.findByName('Contractors'))?.source).toBe('scim');
    },
  );

  appTest(
    'a service key is answered once, never stored by the browser, and verifies codes until revoked',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const created = await admin.post('/service-keys', { name: 'vpn gateway', scopes: ['verify'] });
      expect(created.headers['cache-control']).toBe('no-store');
      const { key, serviceKey } =
        created.json<Envelope<{ key: string; serviceKey: { id: string } }>>().result;
      const listed = await admin.get('/service-keys');
      expect(listed.body).not.toContain(key.split('.')[1]);
      expect(listed.json()).toMatchObject({ result: { keys: [{ name: 'vpn gateway', revokedAt: null }] } });

      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const code = await t.codeOnScreen(user);
      const verify = (presented: string) =>
        t.call(`${API}/tempPass/verify`, { username: user.username, code }, undefined, {
          authorization: `Bearer ${presented}`,
        });
      expect((await admin.post('/service-keys', { name: 'none', scopes: [] })).statusCode).toBe(400);
      expect((await admin.post(`/service-keys/${serviceKey.id}/revoke`)).json()).toMatchObject({
        error: 0,
        result: { revokedAt: expect.any(String) },
      });
      expect((await verify(key)).statusCode).toBe(401);
      expect((await admin.post(`/service-keys/${serviceKey.id}/revoke`)).statusCode).toBe(400);
      expect((await admin.post('/service-keys/nope/revoke')).statusCode).toBe(404);
    },
  );

  appTest(
    'sets and resets branding, administrators only, and the page shows it at once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      expect((await helper.post('/branding', { name: 'footerLeft', value: 'x' })).statusCode).toBe(403);
      const listed = (await admin.get('/branding')).json<Envelope<{ entries: { name: string }[] }>>();
      expect(listed.result.entries.map((entry) => entry.name)).toContain('headerMiddle');

      expect(
        (await admin.post('/branding', { name: 'footerLeft', value: '<b>ACME</b> IT' })).json(),
      ).toMatchObject({
        error: 0,
        result: { name: 'footerLeft', type: 'html', isDefault: false },
      });
      expect((await t.call(`${API}/customizationConfig/getCurrentConfig`, {})).body).toContain(
        '<b>ACME</b> IT',
      );
      const refused = await admin.post('/branding', { name: 'headerLeft', value: 'javascript:alert(1)' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<Envelope>().message).toContain('must be an http(s) URL or a data:image URL');
      expect((await admin.post('/branding', { name: 'nonsense', value: 'x' })).statusCode).toBe(400);

      expect((await admin.post('/branding/reset', { name: 'footerLeft' })).json()).toMatchObject({
        result: { name: 'footerLeft', isDefault: true },
      });
      expect((await t.call(`${API}/customizationConfig/getCurrentConfig`, {})).body).not.toContain('ACME');
    },
  );

  appTest(
    'languages and texts: administrators only, saved texts and a new language used by the page at once, a language nobody has 404',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      expect((await helper.post('/texts/de', { texts: { logout: 'x' } })).statusCode).toBe(403);
      expect((await helper.post('/languages', { code: 'sv', name: 'Svenska' })).statusCode).toBe(403);
      expect((await admin.get('/languages')).json()).toMatchObject({
        result: { languages: expect.arrayContaining([expect.objectContaining({ code: 'de', missing: 0 })]) },
      });

      const added = await admin.post('/languages', { code: 'sv', name: 'Svenska' });
      expect(added.json()).toMatchObject({ error: 0, result: { texts: expect.any(Number) } });
      const offered = await t.app.inject({ method: 'GET', url: `${API}/resourceFile/getLanguageList` });
      expect(offered.body).toContain('Svenska');
      expect((await admin.post('/languages', { code: 'Not a code', name: 'X' })).statusCode).toBe(400);

      const texts = (await admin.get('/texts/sv')).json<
        Envelope<{ texts: { key: string; english: string; text: string | null }[] }>
      >();
      expect(texts.result.texts.find((text) => text.key === 'logout')?.english).toBe('Log out');
      const saved = await admin.post('/texts/sv', { texts: { 'content.title': 'Nödhjälp' } });
      expect(saved.json()).toMatchObject({ error: 0, result: { added: 0, replaced: 1 } });
      const page = await t.app.inject({ method: 'GET', url: `${API}/message?lang=sv` });
      expect(page.json()).toMatchObject({ 'content.title': 'Nödhjälp', logout: 'Log out' });
      const refused = await admin.post('/texts/sv', { texts: { 'no.such.key': 'x' } });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<Envelope>().message).toContain('unknown text key: no.such.key');
      expect((await admin.post('/texts/zz', { texts: { logout: 'x' } })).statusCode).toBe(404);
      expect((await admin.get('/texts/zz')).statusCode).toBe(404);
    },
  );
});
