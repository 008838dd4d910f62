import {
  type AdminPolicyChange,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  TEXT_KEYS,
  usernameOrThrow,
} from '@dea/contract';
import { describe } from 'vitest';
import { SETTINGS, loadConfig } from '../../config.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { DomainError } from '../errors.js';
import { Groups } from '../identity/groups.js';
import { GroupPolicies } from '../policies/group-policies.js';
import { Catalogs } from '../texts/catalogs.js';
import { Administration } from './administration.js';

const T0 = Date.UTC(2026, 11, 7, 14);
const ENV = {
  DEA_SECRET: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0',
  DEA_SMS_HTTP_HEADERS: '{"Authorization":"Bearer gateway-token"}',
  DEA_CODE_LENGTH: '12',
  DEA_SMTP_PASSWORD: 'smtp-password-value',
  DEA_SMS_HTTP_URL: 'https://user:pw@sms.example/send?apikey=sms-api-key',
};

/**
 * An administrator past their passkey, as the console's guard (CONSOLE_ACCESS.administer) lets
 * them through; the administration reads only who they are, for its audit entries.
 */
const ROOT = { account: { username: usernameOrThrow('root'), role: 'admin' } } as ConsoleCaller;

/** The console's administration over the store, built as the composition root builds it. */
function administrationOf(store: Store) {
  const config = loadConfig(ENV);
  const now = () => T0;
  const groups = new Groups(store, now);
  const catalogs = new Catalogs(store, 60_000, now);
  const administration = new Administration({
    store,
    catalogs,
    codeDefaults: config.codeDefaults,
    serviceKeyHash: Buffer.alloc(32, 6),
    settings: { table: SETTINGS, values: config.settingValues },
    groups,
    groupPolicies: new GroupPolicies(store, groups),
    now,
  });
  return { administration, catalogs };
}

/** How a refusal reaches the console: its kind and detail, or 'accepted'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
      return `${error.kind}${error.params.detail === undefined ? '' : `: ${error.params.detail}`}`;
    },
  );

const selfService = (options: Record<string, unknown>): AdminPolicyChange => ({
  category: POLICY_CATEGORY_SELF_SERVICE,
  options,
});

describe.each(STORE_KINDS)('console administration of groups and policies on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "shows each group with its stored and effective policy beside the product's defaults, and keeps a policy option by option, and the roles that may give its members a code",
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      const { id } = await administration.createGroup(ROOT, ' Staff ', 5);
      expect(await administration.groups()).toMatchObject({
        defaults: { enableECode: false, codeLength: 12 },
        groups: [
          {
            id,
            name: 'Staff',
            priority: 5,
            members: 0,
            stored: null,
            issuers: ['admin', 'helpdesk'],
            owner: 'local',
          },
        ],
      });
      await administration.setPolicy(ROOT, id, selfService({ enableECode: true, codeValidityMinutes: 30 }));
      expect(await administration.setPolicy(ROOT, id, selfService({ maxUnusedCodes: 2 }))).toEqual({
        options: { enableECode: true, codeValidityMinutes: 30, maxUnusedCodes: 2 },
      });
      expect((await administration.groups()).groups[0]).toMatchObject({
        stored: { enableECode: true, codeValidityMinutes: 30, maxUnusedCodes: 2 },
        effective: { enableECode: true, codeLength: 12, maxUnusedCodes: 2, codeValidityMinutes: 30 },
      });
      expect(await store.audit.list({ event: 'policy.set' })).toMatchObject([
        { actor: 'console:root', details: { group: 'Staff', options: { maxUnusedCodes: 2 } } },
        { actor: 'console:root', details: { group: 'Staff' } },
      ]);
      expect(await store.audit.list({ event: 'group.created' })).toMatchObject([{ actor: 'console:root' }]);
      const issuers = { category: POLICY_CATEGORY_HELP_DESK, options: { issuers: ['admin'] } } as const;
      expect(await administration.setPolicy(ROOT, id, issuers)).toEqual({ options: { issuers: ['admin'] } });
      expect((await administration.groups()).groups[0]?.issuers).toEqual(['admin']);
    },
  );

  storeTest.concurrent(
    "a policy's bad value is refused as an invalid request naming it, and the stored policy stays",
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      const { id } = await administration.createGroup(ROOT, 'Staff', 5);
      await administration.setPolicy(ROOT, id, selfService({ enableECode: true }));
      for (const [options, reason] of [
        [{ codeLength: 3 }, 'codeLength must be a whole number from 6 to 64'],
        [{ codeAlphabet: 'AABBCCDDEEFF' }, 'codeAlphabet must not repeat a character'],
        [{ emergencyCodeDelivery: 'Pigeon' }, 'emergencyCodeDelivery must be Channel or Display'],
        [{ enableECode: 'yes' }, 'enableECode must be true or false'],
        [{ colour: 'blue' }, 'colour is not a policy option'],
        [{}, 'nothing to set'],
      ] as const)
        expect(await outcome(administration.setPolicy(ROOT, id, selfService(options))), reason).toMatch(
          new RegExp(`^invalid: .*${reason}`),
        );
      for (const issuers of [['root'], 'admin', ['admin', 'admin']])
        expect(
          await outcome(
            administration.setPolicy(ROOT, id, { category: POLICY_CATEGORY_HELP_DESK, options: { issuers } }),
          ),
          JSON.stringify(issuers),
        ).toMatch(/^invalid: /);
      expect((await administration.groups()).groups[0]?.stored).toEqual({ enableECode: true });
      expect(await store.audit.list({ event: 'policy.set' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "a group's name is taken once: a second group of the name is refused, and ten at once make one",
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      await administration.createGroup(ROOT, 'Staff', 1);
      expect(await outcome(administration.createGroup(ROOT, 'Staff', 2))).toMatch(
        /a group named "Staff" already exists/,
      );
      const racers = await Promise.all(
        Array.from({ length: 10 }, () => outcome(administration.createGroup(ROOT, 'Racers', 1))),
      );
      expect(racers.filter((answer) => answer === 'accepted')).toHaveLength(1);
      expect(
        racers.filter((answer) => answer !== 'accepted').every((answer) => answer.startsWith('invalid')),
      ).toBe(true);
      expect((await store.groups.list()).filter((group) => group.name === 'Racers')).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'a group nobody has is answered as missing, for its policy and its owner alike',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      expect(
        await outcome(administration.setPolicy(ROOT, 'no-such-group', selfService({ codeUses: 2 }))),
      ).toBe('missing');
      expect(await outcome(administration.setGroupOwner(ROOT, 'no-such-group', 'scim'))).toBe('missing');
      expect(await store.audit.list({ limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a group is handed to SCIM and taken back, audited; an owner that is no door is refused',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      const { id } = await administration.createGroup(ROOT, 'Contractors', 1);
      expect(await outcome(administration.setGroupOwner(ROOT, id, 'ldap'))).toMatch(
        /^invalid: the owner must be/,
      );
      expect(await administration.setGroupOwner(ROOT, id, 'scim')).toEqual({ owner: 'scim' });
      expect((await administration.groups()).groups[0]?.owner).toBe('scim');
      // SCIM's now: its policy is still the console's, its members SCIM's.
      expect(await administration.setGroupOwner(ROOT, id, 'local')).toEqual({ owner: 'local' });
      expect(await store.audit.list({ event: 'group.owner_set' })).toMatchObject([
        { actor: 'console:root', details: { group: 'Contractors', from: 'scim', owner: 'local' } },
        { actor: 'console:root', details: { group: 'Contractors', from: 'local', owner: 'scim' } },
      ]);
    },
  );
});

describe.each(STORE_KINDS)('console administration of keys, branding, texts and settings on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a service key is shown once on creation, listed without its secret, revoked once; its secret is in no audit entry',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      const { key, serviceKey } = await administration.createServiceKey(ROOT, {
        name: 'vpn gateway',
        scopes: ['verify'],
      });
      expect(key).toMatch(/^dea_/);
      expect(serviceKey).toMatchObject({
        name: 'vpn gateway',
        scopes: ['verify'],
        revokedAt: null,
        createdAt: new Date(T0).toISOString(),
      });
      const listed = await administration.serviceKeys();
      expect(listed).toEqual({ keys: [serviceKey] });
      expect(JSON.stringify(listed)).not.toContain(key.split('.')[1]);

      expect(
        await outcome(administration.createServiceKey(ROOT, { name: 'vpn gateway', scopes: ['verify'] })),
      ).toMatch(/^invalid: a service key named "vpn gateway" already exists/);
      expect(
        await outcome(administration.createServiceKey(ROOT, { name: 'bad/name', scopes: ['verify'] })),
      ).toMatch(/^invalid: /);
      expect(await outcome(administration.createServiceKey(ROOT, { name: 'none', scopes: [] }))).toMatch(
        /^invalid: /,
      );

      expect(await administration.revokeServiceKey(ROOT, serviceKey.id)).toMatchObject({
        revokedAt: new Date(T0).toISOString(),
      });
      expect(await outcome(administration.revokeServiceKey(ROOT, serviceKey.id))).toBe(
        'invalid: service key vpn gateway was already revoked',
      );
      expect(await outcome(administration.revokeServiceKey(ROOT, 'no-such-key'))).toBe('missing');
      const entries = await store.audit.list({ limit: 100 });
      expect(entries.map((entry) => [entry.event, entry.actor])).toEqual([
        ['service_key.revoked', 'console:root'],
        ['service_key.created', 'console:root'],
      ]);
      expect(JSON.stringify(entries)).not.toContain(key);
    },
  );

  storeTest.concurrent(
    'ten administrators making one service key of a name at once make one',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          outcome(administration.createServiceKey(ROOT, { name: 'racer', scopes: ['verify'] })),
        ),
      );
      expect(answers.filter((answer) => answer === 'accepted')).toHaveLength(1);
      expect((await store.serviceKeys.list()).filter((key) => key.name === 'racer')).toHaveLength(1);
      expect(await store.audit.list({ event: 'service_key.created' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'branding is checked for its type, set and reset to its default, each audited',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      expect((await administration.branding()).entries.every((entry) => entry.isDefault)).toBe(true);
      expect(await administration.setBranding(ROOT, 'footerLeft', '<b>ACME</b> IT')).toMatchObject({
        name: 'footerLeft',
        type: 'html',
        isDefault: false,
      });
      for (const [value, reason] of [
        ['javascript:alert(1)', 'must be an http(s) URL or a data:image URL'],
        [`data:image/png;base64,${'A'.repeat(600 * 1024)}`, 'larger than 512 KiB'],
      ] as const)
        expect(await outcome(administration.setBranding(ROOT, 'headerLeft', value)), reason).toContain(
          reason,
        );
      expect(
        await administration.setBranding(
          ROOT,
          'headerLeft',
          `data:image/png;base64,${'A'.repeat(300 * 1024)}`,
        ),
      ).toMatchObject({
        isDefault: false,
      });
      expect(await administration.resetBranding(ROOT, 'footerLeft')).toMatchObject({
        name: 'footerLeft',
        isDefault: true,
      });
      expect(
        (await administration.branding()).entries.find((entry) => entry.name === 'footerLeft')?.isDefault,
      ).toBe(true);
      expect((await store.audit.list({ limit: 10 })).map((entry) => [entry.event, entry.actor])).toEqual([
        ['branding.reset', 'console:root'],
        ['branding.set', 'console:root'],
        ['branding.set', 'console:root'],
      ]);
    },
  );

  storeTest.concurrent(
    'ten administrators adding one language at once add it once',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      await store.catalogs.setLanguage('en', 'English');
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          outcome(administration.addLanguage(ROOT, { code: 'sv', name: 'Svenska' })),
        ),
      );
      expect(answers.filter((answer) => answer === 'accepted')).toHaveLength(1);
      expect(answers.filter((answer) => answer === 'invalid: language sv already exists')).toHaveLength(9);
      expect(await store.audit.list({ event: 'language.added' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'a language starts from English, once; each language shows its texts beside English and how many are missing',
    async ({ testStore: { store }, expect }) => {
      const { administration } = administrationOf(store);
      await store.catalogs.setLanguage('en', 'English');
      await store.catalogs.putMessages(
        'en',
        { logout: 'Log out', 'content.title': 'Emergency access' },
        { overwrite: true },
      );
      expect(await administration.addLanguage(ROOT, { code: 'sv', name: 'Svenska' })).toEqual({ texts: 2 });
      expect(await outcome(administration.addLanguage(ROOT, { code: 'sv', name: 'Svenska' }))).toBe(
        'invalid: language sv already exists',
      );
      expect(await outcome(administration.addLanguage(ROOT, { code: 'Not a code', name: 'X' }))).toMatch(
        /^invalid: /,
      );
      expect(await outcome(administration.addLanguage(ROOT, { code: 'fi', name: 'Suomi', from: 'zz' }))).toBe(
        'missing',
      );
      expect((await administration.languages()).languages).toEqual(
        expect.arrayContaining([{ code: 'sv', name: 'Svenska', texts: 2, missing: TEXT_KEYS.length - 2 }]),
      );
      const texts = await administration.texts(ROOT, 'sv');
      expect(texts.texts.find((text) => text.key === 'logout')).toEqual({
        key: 'logout',
        english: 'Log out',
        text: 'Log out',
      });
      expect(texts.texts.filter((text) => text.text === null)).toHaveLength(TEXT_KEYS.length - 2);
      expect(await outcome(administration.texts(ROOT, 'zz'))).toBe('missing');
      expect(await store.audit.list({ event: 'language.added' })).toMatchObject([
        { actor: 'console:root', details: { language: 'sv', from: 'en' } },
      ]);
    },
  );

  storeTest.concurrent(
    "saved texts are checked against English's placeholders, and the page's catalogs see them at once",
    async ({ testStore: { store }, expect }) => {
      const { administration, catalogs } = administrationOf(store);
      await store.catalogs.setLanguage('xq', 'Gaps');
      await store.catalogs.putMessages('xq', { 'content.title': 'Alt' }, { overwrite: true });
      // Cached before the change.
      expect((await catalogs.dictionary('xq'))['content.title']).toBe('Alt');
      expect(
        await administration.setTexts(ROOT, 'xq', {
          'content.title': 'Nothilfe',
          successMessage: 'Gesendet an {recipient}.',
        }),
      ).toEqual({ added: 1, replaced: 1 });
      expect((await catalogs.dictionary('xq'))['content.title']).toBe('Nothilfe');
      for (const [texts, reason] of [
        [{ successMessage: 'Gesendet.' }, 'placeholders none differ from English {recipient}'],
        [{ 'no.such.key': 'x' }, 'unknown text key: no.such.key'],
        [{ logout: '   ' }, 'non-empty'],
      ] as const)
        expect(await outcome(administration.setTexts(ROOT, 'xq', texts)), reason).toContain(reason);
      expect(await outcome(administration.setTexts(ROOT, 'zz', { logout: 'x' }))).toBe('missing');
      expect((await store.catalogs.messages('xq')).logout).toBeUndefined();
      expect(await store.audit.list({ event: 'messages.imported' })).toMatchObject([
        { actor: 'console:root', details: { language: 'xq', added: 1, replaced: 1 } },
      ]);
    },
  );

  storeTest('the settings in effect are shown without a secret', ({ testStore: { store }, expect }) => {
    const { settings } = administrationOf(store).administration.settings();
    expect(JSON.stringify(settings)).not.toMatch(
      /c2VjcmV0|smtp-password-value|sms-api-key|gateway-token|:pw@/,
    );
    const of = (name: string) => settings.find((setting) => setting.name === name);
    for (const secret of ['DEA_SECRET', 'DEA_SMTP_PASSWORD'])
      expect(of(secret), secret).toMatchObject({ value: '(set)', secret: true });
    expect(of('DEA_SMS_HTTP_URL')?.value).toContain('https://sms.example/send');
    expect(of('DEA_CODE_LENGTH')).toMatchObject({ value: '12', isDefault: false });
    expect(of('DEA_CODE_USES')).toMatchObject({ isDefault: true });
  });
});
