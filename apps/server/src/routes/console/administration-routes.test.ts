import { POLICY_CATEGORY_HELP_DESK, POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { describe } from 'vitest';
import { API } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';

const BASE = '/dea/admin-api/admin';

type Envelope<T = Record<string, unknown>> = { error: number; message: string; result: T };

describe.each(STORE_KINDS)('console administration on %s', (kind) => {
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
    'shows the groups with stored and effective policies and the defaults, and changes them option by option',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_CODE_LENGTH: '12' });
      const admin = await consoleAgent(t, BASE, 'admin');
      const created = await admin.post('/groups', { name: ' Staff ', priority: 5 });
      expect(created.json()).toMatchObject({ error: 0, result: { id: expect.any(String) } });
      const groupId = created.json<Envelope<{ id: string }>>().result.id;

      const listed = (await admin.get('/groups')).json<Envelope>();
      expect(listed.result).toMatchObject({
        defaults: { enableECode: false, codeLength: 12 },
        groups: [
          {
            id: groupId,
            name: 'Staff',
            priority: 5,
            members: 0,
            stored: null,
            issuers: ['admin', 'helpdesk'],
          },
        ],
      });

      const set = await admin.post(`/groups/${groupId}/policy`, {
        category: POLICY_CATEGORY_SELF_SERVICE,
        options: { enableECode: true, codeValidityMinutes: 30 },
      });
      expect(set.json()).toMatchObject({
        error: 0,
        result: { options: { enableECode: true, codeValidityMinutes: 30 } },
      });
      const again = await admin.post(`/groups/${groupId}/policy`, {
        category: POLICY_CATEGORY_SELF_SERVICE,
        options: { maxUnusedCodes: 2 },
      });
      expect(again.json<Envelope>().result.options).toEqual({
        enableECode: true,
        codeValidityMinutes: 30,
        maxUnusedCodes: 2,
      });
      expect((await admin.get('/groups')).json<Envelope>().result).toMatchObject({
        groups: [
          {
            stored: { maxUnusedCodes: 2 },
            effective: { enableECode: true, codeLength: 12, maxUnusedCodes: 2 },
          },
        ],
      });
      expect(await t.services.store.audit.list({ event: 'policy.set' })).toMatchObject([
        { actor: `console:${admin.username}`, details: { group: 'Staff', options: { maxUnusedCodes: 2 } } },
        { actor: `console:${admin.username}` },
      ]);

      // Bad values are refused with the reason, and nothing changes.
      for (const [options, reason] of [
        [{ codeLength: 3 }, 'codeLength must be a whole number from 6 to 64'],
        [{ codeAlphabet: 'AABBCCDDEEFF' }, 'codeAlphabet must not repeat a character'],
        [{ emergencyCodeDelivery: 'Pigeon' }, 'emergencyCodeDelivery must be Channel or Display'],
        [{ enableECode: 'yes' }, 'enableECode must be true or false'],
        [{ colour: 'blue' }, 'colour is not a policy option'],
        [{}, 'nothing to set'],
      ] as const) {
        const refused = await admin.post(`/groups/${groupId}/policy`, {
          category: POLICY_CATEGORY_SELF_SERVICE,
          options,
        });
        expect(refused.statusCode, reason).toBe(400);
        expect(refused.json<Envelope>().message, reason).toContain(reason);
      }
      expect(
        (await admin.post(`/groups/${groupId}/policy`, { category: 'Other', options: {} })).statusCode,
      ).toBe(400);
      expect(
        (
          await admin.post('/groups/nope/policy', {
            category: POLICY_CATEGORY_SELF_SERVICE,
            options: { codeUses: 2 },
          })
        ).statusCode,
      ).toBe(404);
      expect((await admin.get('/groups')).json<Envelope>().result).toMatchObject({
        groups: [{ stored: { enableECode: true, codeValidityMinutes: 30, maxUnusedCodes: 2 } }],
      });
      expect(
        (await admin.post('/groups', { name: 'Staff', priority: 1 })).json<Envelope>().message,
      ).toContain('a group named "Staff" already exists');
    },
  );

  appTest('creates one group of a name when ten administrators ask at once', async ({ startApp, expect }) => {
    const t = await startApp();
    const admin = await consoleAgent(t, BASE, 'admin');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => admin.post('/groups', { name: 'Racers', priority: 1 })),
    );
    expect(answers.filter((answer) => answer.json<Envelope>().error === 0)).toHaveLength(1);
    expect(
      answers.map((answer) => answer.statusCode).filter((status) => status !== 200 && status !== 400),
    ).toEqual([]);
    expect((await t.services.store.groups.list()).filter((group) => group.name === 'Racers')).toHaveLength(1);
  });

  appTest(
    'makes one service key and adds one language of a name when ten administrators ask at once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const burst = (url: string, body: unknown) =>
        Promise.all(Array.from({ length: 10 }, () => admin.post(url, body)));
      const succeeded = (answers: Awaited<ReturnType<typeof burst>>) =>
        answers.filter((answer) => answer.json<Envelope>().error === 0);

      const keys = await burst('/service-keys', { name: 'racer', scopes: ['verify'] });
      expect(succeeded(keys)).toHaveLength(1);
      expect(keys.every((answer) => answer.statusCode === 200 || answer.statusCode === 400)).toBe(true);
      expect((await t.services.store.serviceKeys.list()).filter((key) => key.name === 'racer')).toHaveLength(
        1,
      );
      expect(await t.services.store.audit.list({ event: 'service_key.created' })).toHaveLength(1);

      const languages = await burst('/languages', { code: 'sv', name: 'Svenska' });
      expect(succeeded(languages)).toHaveLength(1);
      expect(languages.every((answer) => answer.statusCode === 200 || answer.statusCode === 400)).toBe(true);
      expect(await t.services.store.audit.list({ event: 'language.added' })).toHaveLength(1);
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

      for (const issuers of [['root'], 'admin', ['admin', 'admin']]) {
        const refused = await admin.post(`/groups/${group?.id}/policy`, {
          category: POLICY_CATEGORY_HELP_DESK,
          options: { issuers },
        });
        expect(refused.statusCode, JSON.stringify(issuers)).toBe(400);
      }
    },
  );

  appTest(
    'hands a group to SCIM and takes it back, by the rule of dea group owner',
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
      expect((await t.services.store.groups.findByName('Contractors'))?.source).toBe('local');

      expect((await admin.post(`/groups/${groupId}/owner`, { owner: 'scim' })).json()).toMatchObject({
        error: 0,
        result: { owner: 'scim' },
      });
      expect((await admin.get('/groups')).json()).toMatchObject({
        result: { groups: [{ id: groupId, owner: 'scim' }] },
      });
      expect(await t.services.store.audit.list({ event: 'group.owner_set' })).toMatchObject([
        {
          actor: `console:${admin.username}`,
          details: { group: 'Contractors', from: 'local', owner: 'scim' },
        },
      ]);
      expect((await admin.post(`/groups/${groupId}/owner`, { owner: 'local' })).json()).toMatchObject({
        result: { owner: 'local' },
      });
      expect((await t.services.store.groups.findByName('Contractors'))?.source).toBe('local');
    },
  );

  appTest(
    'creates a service key shown once that verifies codes, lists keys without secrets, and revokes',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const created = await admin.post('/service-keys', { name: 'vpn gateway', scopes: ['verify'] });
      expect(created.headers['cache-control']).toBe('no-store');
      const { key, serviceKey } =
        created.json<Envelope<{ key: string; serviceKey: { id: string } }>>().result;
      expect(key).toMatch(/^dea_/);
      const listed = await admin.get('/service-keys');
      expect(listed.body).not.toContain(key.split('.')[1]);
      expect(listed.json()).toMatchObject({
        result: { keys: [{ name: 'vpn gateway', scopes: ['verify'], revokedAt: null }] },
      });

      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const code = await t.codeOnScreen(user);
      const verify = (presented: string) =>
        t.call(`${API}/tempPass/verify`, { username: user.username, code }, undefined, {
          authorization: `Bearer ${presented}`,
        });
      expect(
        (await admin.post('/service-keys', { name: 'vpn gateway', scopes: ['verify'] })).statusCode,
      ).toBe(400);
      expect((await admin.post('/service-keys', { name: 'bad/name', scopes: ['verify'] })).statusCode).toBe(
        400,
      );
      expect((await admin.post('/service-keys', { name: 'none', scopes: [] })).statusCode).toBe(400);

      expect((await admin.post(`/service-keys/${serviceKey.id}/revoke`)).json()).toMatchObject({
        error: 0,
        result: { revokedAt: expect.any(String) },
      });
      expect((await verify(key)).statusCode).toBe(401);
      expect((await admin.post(`/service-keys/${serviceKey.id}/revoke`)).statusCode).toBe(400);
      expect((await admin.post('/service-keys/nope/revoke')).statusCode).toBe(404);
      expect((await t.services.store.audit.list({ event: 'service_key.created' }))[0]).toMatchObject({
        actor: `console:${admin.username}`,
      });
      expect(JSON.stringify(await t.services.store.audit.list({}))).not.toContain(key);
    },
  );

  appTest('shows the settings in effect without a secret', async ({ startApp, expect }) => {
    const t = await startApp({
      DEA_SECRET: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0',
      DEA_SMTP_PASSWORD: 'smtp-password-value',
      DEA_SMS_HTTP_URL: 'https://user:pw@sms.example/send?apikey=sms-api-key',
      DEA_SMS_HTTP_HEADERS: '{"Authorization":"Bearer gateway-token"}',
      DEA_CODE_LENGTH: '12',
    });
    const admin = await consoleAgent(t, BASE, 'admin');
    const shown = await admin.get('/settings');
    for (const secret of ['c2VjcmV0', 'smtp-password-value', 'sms-api-key', 'gateway-token', ':pw@'])
      expect(shown.body, secret).not.toContain(secret);
    const settings =
      shown.json<Envelope<{ settings: { name: string; value: string; isDefault: boolean }[] }>>().result
        .settings;
    const of = (name: string) => settings.find((setting) => setting.name === name);
    expect(of('DEA_SECRET')).toMatchObject({ value: '(set)', secret: true });
    expect(of('DEA_SMTP_PASSWORD')).toMatchObject({ value: '(set)', secret: true });
    expect(of('DEA_SMS_HTTP_URL')?.value).toContain('https://sms.example/send');
    expect(of('DEA_CODE_LENGTH')).toMatchObject({ value: '12', isDefault: false });
    expect(of('DEA_CODE_USES')).toMatchObject({ isDefault: true });
  });

  appTest(
    'sets and resets branding, checked for its type, and the page shows it at once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      expect((await helper.post('/branding', { name: 'footerLeft', value: 'x' })).statusCode).toBe(403);

      const listed = (await admin.get('/branding')).json<
        Envelope<{ entries: { name: string; isDefault: boolean }[] }>
      >();
      expect(listed.result.entries.map((entry) => entry.name)).toContain('headerMiddle');
      expect(listed.result.entries.every((entry) => entry.isDefault)).toBe(true);

      const set = await admin.post('/branding', { name: 'footerLeft', value: '<b>ACME</b> IT' });
      expect(set.json()).toMatchObject({
        error: 0,
        result: { name: 'footerLeft', type: 'html', isDefault: false },
      });
      const page = await t.call(`${API}/customizationConfig/getCurrentConfig`, {});
      expect(page.body).toContain('<b>ACME</b> IT');

      for (const [value, reason] of [
        ['javascript:alert(1)', 'must be an http(s) URL or a data:image URL'],
        [`data:image/png;base64,${'A'.repeat(600 * 1024)}`, 'larger than 512 KiB'],
      ]) {
        const refused = await admin.post('/branding', { name: 'headerLeft', value });
        expect(refused.statusCode, reason).toBe(400);
        expect(refused.json<Envelope>().message, reason).toContain(reason);
      }
      expect((await admin.post('/branding', { name: 'nonsense', value: 'x' })).statusCode).toBe(400);
      const logo = `data:image/png;base64,${'A'.repeat(300 * 1024)}`;
      expect((await admin.post('/branding', { name: 'headerLeft', value: logo })).json()).toMatchObject({
        error: 0,
      });

      expect((await admin.post('/branding/reset', { name: 'footerLeft' })).json()).toMatchObject({
        result: { name: 'footerLeft', isDefault: true },
      });
      expect((await t.call(`${API}/customizationConfig/getCurrentConfig`, {})).body).not.toContain('ACME');
      expect(await t.services.store.audit.list({ event: 'branding.set' })).toMatchObject([
        { actor: `console:${admin.username}` },
        { actor: `console:${admin.username}`, details: { name: 'footerLeft' } },
      ]);
    },
  );

  appTest(
    'shows each language beside English with its missing texts, and saves checked texts the page uses at once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      expect((await t.dea(['messages', 'add-language', 'eo', 'Esperanto'])).code).toBe(0);
      // A language with gaps: every text but two.
      const store = t.services.store;
      const full = await store.catalogs.messages('eo');
      await store.catalogs.setLanguage('xq', 'Gaps');
      const { 'content.title': _title, logout: _logout, ...rest } = full;
      await store.catalogs.putMessages('xq', rest, { overwrite: true });

      const languages = (await admin.get('/languages')).json<
        Envelope<{ languages: { code: string; missing: number }[] }>
      >();
      expect(languages.result.languages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: 'xq', missing: 2 }),
          expect.objectContaining({ code: 'de', missing: 0 }),
        ]),
      );
      const texts = (await admin.get('/texts/xq')).json<
        Envelope<{ texts: { key: string; english: string; text: string | null }[] }>
      >();
      expect(
        texts.result.texts
          .filter((text) => text.text === null)
          .map((text) => text.key)
          .sort(),
      ).toEqual(['content.title', 'logout']);
      expect(texts.result.texts.find((text) => text.key === 'logout')?.english).toBe('Log out');

      const saved = await admin.post('/texts/xq', {
        texts: { 'content.title': 'Nothilfe', successMessage: 'Gesendet an {recipient}.' },
      });
      expect(saved.json()).toMatchObject({ error: 0, result: { added: 1, replaced: 1 } });
      const page = await t.app.inject({ method: 'GET', url: `${API}/message?lang=xq` });
      expect(page.json()).toMatchObject({ 'content.title': 'Nothilfe', logout: 'Log out' });

      for (const [body, reason] of [
        [{ texts: { successMessage: 'Gesendet.' } }, 'placeholders none differ from English {recipient}'],
        [{ texts: { 'no.such.key': 'x' } }, 'unknown text key: no.such.key'],
        [{ texts: { logout: '   ' } }, 'non-empty'],
      ] as const) {
        const refused = await admin.post('/texts/xq', body);
        expect(refused.statusCode, reason).toBe(400);
        expect(refused.json<Envelope>().message, reason).toContain(reason);
      }
      expect((await admin.post('/texts/zz', { texts: { logout: 'x' } })).statusCode).toBe(404);
      expect((await admin.get('/texts/zz')).statusCode).toBe(404);
      expect((await store.catalogs.messages('xq')).logout).toBeUndefined();
      expect(await store.audit.list({ event: 'messages.imported' })).toMatchObject([
        { actor: `console:${admin.username}`, details: { language: 'xq', added: 1, replaced: 1 } },
      ]);
      const helper = await consoleAgent(t, BASE, 'helpdesk');
      expect((await helper.post('/texts/xq', { texts: { logout: 'x' } })).statusCode).toBe(403);
      expect((await helper.post('/languages', { code: 'sv', name: 'Svenska' })).statusCode).toBe(403);

      // A new language starts from English and is offered by the page at once.
      const added = await admin.post('/languages', { code: 'sv', name: 'Svenska' });
      expect(added.json()).toMatchObject({
        error: 0,
        result: { texts: Object.keys(await store.catalogs.messages('en')).length },
      });
      const offered = await t.app.inject({ method: 'GET', url: `${API}/resourceFile/getLanguageList` });
      expect(offered.body).toContain('Svenska');
      expect(
        (await admin.post('/languages', { code: 'sv', name: 'Svenska' })).json<Envelope>().message,
      ).toContain('language sv already exists');
      expect((await admin.post('/languages', { code: 'Not a code', name: 'X' })).statusCode).toBe(400);
      expect((await admin.post('/languages', { code: 'fi', name: 'Suomi', from: 'zz' })).statusCode).toBe(
        404,
      );
      expect(await store.audit.list({ event: 'language.added' })).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            actor: `console:${admin.username}`,
            details: { language: 'sv', from: 'en' },
          }),
          expect.objectContaining({ actor: 'cli', details: { language: 'eo', from: 'en' } }),
        ]),
      );
    },
  );
});
