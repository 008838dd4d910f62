import {
  BUILT_IN_LANGUAGES,
  BUILT_IN_PAGE_TEXTS,
  BUILT_IN_PAGE_TEXT_KEYS,
  TEXT_KEYS,
  TEXTS_PER_SAVE,
  placeholdersOf,
} from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { ensureBuiltInContent } from '../seed/built-in-content.js';
import { execRaw } from '../testing/store-dump.js';
import { storeTest } from '../testing/fixtures.js';
import { BUILT_IN_CATALOGS } from './built-in-catalogs.js';

const languages = BUILT_IN_LANGUAGES.map((language) => language.languageCode);

describe('built-in catalogs', () => {
  it('ship one catalog for each of the 11 languages of the contract', () => {
    expect(languages).toHaveLength(11);
    expect(Object.keys(BUILT_IN_CATALOGS).sort()).toEqual([...languages].sort());
  });

  it('fit, each whole, in one save of the console', () => {
    expect(TEXT_KEYS.length).toBeLessThanOrEqual(TEXTS_PER_SAVE);
  });

  it.each(languages)('%s has exactly the text keys of the contract, none empty', (code) => {
    const catalog = BUILT_IN_CATALOGS[code];
    expect(Object.keys(catalog).sort()).toEqual([...TEXT_KEYS].sort());
    for (const key of TEXT_KEYS) expect(catalog[key].trim(), key).not.toBe('');
  });

  it.each(languages)('%s uses the same placeholders as English in every text', (code) => {
    for (const key of TEXT_KEYS) {
      expect(placeholdersOf(BUILT_IN_CATALOGS[code][key]), `${code} ${key}`).toEqual(
        placeholdersOf(BUILT_IN_CATALOGS.en[key]),
      );
    }
  });

  it("the page's built-in texts (shown when no catalog can be loaded) are each catalog's own, in every language", () => {
    expect(Object.keys(BUILT_IN_PAGE_TEXTS).sort()).toEqual([...languages].sort());
    for (const code of languages)
      for (const key of BUILT_IN_PAGE_TEXT_KEYS)
        expect(BUILT_IN_PAGE_TEXTS[code]?.[key], `${code} ${key}`).toBe(BUILT_IN_CATALOGS[code]?.[key]);
  });

  it.each(languages.filter((code) => code !== 'en'))('%s is a translation, not a copy of English', (code) => {
    const catalog = BUILT_IN_CATALOGS[code];
    const same = TEXT_KEYS.filter(
      (key) => catalog[key] === BUILT_IN_CATALOGS.en[key] && /[a-z]{4}/i.test(catalog[key]),
    );
    // Only product names and words the languages share ('Administrator', 'Actions', 'E-mail') may
    // stay as they are: at most one text in 30.
    expect(same.length, same.join(', ')).toBeLessThanOrEqual(Math.ceil(TEXT_KEYS.length / 30));
    expect(catalog['content.title']).not.toBe(BUILT_IN_CATALOGS.en['content.title']);
    expect(catalog['error.codeStoreFull']).not.toBe(BUILT_IN_CATALOGS.en['error.codeStoreFull']);
  });
});

describe('syncing the built-in content into the store', () => {
  storeTest(
    'fills an empty store, keeps a text an operator changed and adds a key that went missing',
    async ({ testStore }) => {
      const { store } = testStore;
      await ensureBuiltInContent(store);
      expect((await store.catalogs.listLanguages()).map((language) => language.code).sort()).toEqual(
        [...languages].sort(),
      );
      expect(await store.catalogs.messages('de')).toEqual(BUILT_IN_CATALOGS.de);

      await store.catalogs.putMessages('de', { 'content.title': 'Notfall bei ACME' }, { overwrite: true });
      await store.branding.set({ name: 'htmlTitle', type: 'text', value: 'ACME', isDefault: false });
      await execRaw(
        testStore,
        "delete from messages where language_code = 'fr' and key = 'content.copyCode'",
      );
      // As after an upgrade whose catalogs differ from the ones synced before.
      await execRaw(
        testStore,
        "update meta set value = 'an older release' where key = 'built-in-catalogs.sha256'",
      );
      expect((await store.catalogs.messages('fr'))['content.copyCode']).toBeUndefined();

      await ensureBuiltInContent(store);
      const german = await store.catalogs.messages('de');
      expect(german['content.title']).toBe('Notfall bei ACME');
      expect(german['content.yourCode']).toBe(BUILT_IN_CATALOGS.de['content.yourCode']);
      expect((await store.catalogs.messages('fr'))['content.copyCode']).toBe(
        BUILT_IN_CATALOGS.fr['content.copyCode'],
      );
      expect((await store.branding.list()).find((entry) => entry.name === 'htmlTitle')).toMatchObject({
        value: 'ACME',
        isDefault: false,
      });
      expect(await store.branding.list()).toHaveLength(9);
    },
  );
});
