import {
  CHANNEL_DELIVERY_MODE,
  LOGIN_TEXT_KEYS,
  PAGE_CALLS,
  POLICY_CATEGORY_SELF_SERVICE,
  pageCallKey,
  usernameOrThrow,
} from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DEFAULT_CODE_ALPHABET } from '../codes/code-settings.js';
import { Catalogs } from '../texts/catalogs.js';
import { loginStartupAnswers, pageStartupAnswers } from './page-startup-answers.js';
import { RememberedDevices } from './remembered-devices.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const DEFAULTS = {
  codeLength: 10,
  codeAlphabet: DEFAULT_CODE_ALPHABET,
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 1,
};

/**
 * What the startup answers read, over the test's store: English and German with a page text, a
 * sign-in text and a console text each; `addUser` makes a user with this policy, language and an email.
 */
async function startupOf(store: Store) {
  await store.catalogs.setLanguage('en', 'English');
  await store.catalogs.setLanguage('de', 'Deutsch');
  const texts = (word: string) => ({
    'app.title': `${word} title`,
    'login.heading': `${word} heading`,
    'console.title': `${word} console`,
  });
  await store.catalogs.putMessages('en', texts('English'), { overwrite: true });
  await store.catalogs.putMessages('de', texts('Deutsch'), { overwrite: true });
  const now = () => T0;
  const services = {
    store,
    config: { codeDefaults: DEFAULTS },
    now,
    catalogs: new Catalogs(store, 0, now),
    rememberedDevices: new RememberedDevices({ store, hashKeys: [Buffer.alloc(32, 1)], now }),
    channelRules: { enabled: () => true, allowedPhonePrefixes: [] },
  };
  async function addUser(policy: Record<string, unknown>, locale: string | null): Promise<User> {
    const id = newId(T0);
    await store.users.create({
      id,
      username: usernameOrThrow(`start-${id.slice(-8).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Starting Up',
      locale,
      createdAt: T0,
    });
    const groupId = newId(T0);
    await store.groups.create({ id: groupId, name: `start-${id}`, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, policy);
    await store.groups.addMember(groupId, id);
    await store.channels.set({
      id: newId(T0),
      userId: id,
      key: 'email',
      address: 'ada@example.com',
      createdAt: T0,
    });
    return (await store.users.findById(id))!;
  }
  const startup = (user: User, acceptLanguage?: string) =>
    pageStartupAnswers(services, {
      user,
      acceptLanguage,
      clientAddress: '198.51.100.7',
      deviceCookie: undefined,
    });
  return { services, addUser, startup };
}

describe.each(STORE_KINDS)("the page's startup answers on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'carry the user, languages, locale, branding, policy and the page texts of the user’s language, and no channels while codes show on screen',
    async ({ testStore: { store }, expect }) => {
      const { addUser, startup } = await startupOf(store);
      const user = await addUser({ enableECode: true, emergencyCodeDelivery: 'Display' }, 'de');
      const answers = await startup(user, 'en');
      expect(Object.keys(answers).sort()).toEqual(
        [
          PAGE_CALLS.userInfo(),
          PAGE_CALLS.languageList(),
          PAGE_CALLS.userLocale(user.id),
          PAGE_CALLS.messages('messages_de'),
          PAGE_CALLS.branding(),
          PAGE_CALLS.policy(user.id),
        ]
          .map(pageCallKey)
          .sort(),
      );
      // The page's texts alone: the sign-in's and the console's stay out of its HTML.
      expect(answers[pageCallKey(PAGE_CALLS.messages('messages_de'))]).toEqual({
        'app.title': 'Deutsch title',
      });
      expect(answers[pageCallKey(PAGE_CALLS.policy(user.id))]).toMatchObject({
        error: 0,
        result: { options: { enableECode: true, emergencyCodeDelivery: 'Display' } },
      });
      expect(answers[pageCallKey(PAGE_CALLS.userLocale(user.id))]).toMatchObject({
        result: { id: user.id, userLocale: 'de' },
      });
    },
  );

  storeTest.concurrent(
    'carry the channels when codes go by channel, and take the browser’s language for a user without one',
    async ({ testStore: { store }, expect }) => {
      const { addUser, startup } = await startupOf(store);
      const user = await addUser({ enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE }, null);
      const answers = await startup(user, 'de-AT, en;q=0.5');
      const channels = answers[pageCallKey(PAGE_CALLS.availableChannels(user.id))] as { result: object };
      expect(Object.keys(channels.result)).toEqual(['email']);
      expect(JSON.stringify(channels)).not.toContain('ada@example.com');
      expect(answers).toHaveProperty([pageCallKey(PAGE_CALLS.messages('messages_de'))]);
      // Nothing asked of the page's policy call was refused or audited.
      expect(await store.audit.list({ userId: user.id, limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a policy without codes carries no channels either, and nothing is audited',
    async ({ testStore: { store }, expect }) => {
      const { addUser, startup } = await startupOf(store);
      const user = await addUser({ enableECode: false, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE }, 'en');
      const answers = await startup(user);
      expect(answers).not.toHaveProperty([pageCallKey(PAGE_CALLS.availableChannels(user.id))]);
      expect(await store.audit.list({ userId: user.id, limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    "the login application's answers carry the language list, branding and only the sign-in's texts, in the browser's language",
    async ({ testStore: { store }, expect }) => {
      const { services } = await startupOf(store);
      const answers = await loginStartupAnswers(services, 'de');
      expect(Object.keys(answers).sort()).toEqual(
        [PAGE_CALLS.languageList(), PAGE_CALLS.messages('messages_de'), PAGE_CALLS.branding()]
          .map(pageCallKey)
          .sort(),
      );
      const texts = answers[pageCallKey(PAGE_CALLS.messages('messages_de'))] as Record<string, string>;
      expect(Object.keys(texts).every((key) => (LOGIN_TEXT_KEYS as readonly string[]).includes(key))).toBe(
        true,
      );
      expect(texts['app.title']).toBe('Deutsch title');
      expect(texts['login.heading']).toBe('Deutsch heading');
      expect(texts).not.toHaveProperty(['console.title']);
      expect(Object.keys(await loginStartupAnswers(services, undefined))).toContain(
        pageCallKey(PAGE_CALLS.messages('messages')),
      );
    },
  );
});
