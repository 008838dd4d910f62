import { describe } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { openTestStore, STORE_KINDS } from '../../testing/stores.js';
import { Catalogs } from './catalogs.js';

const T0 = Date.UTC(2026, 11, 7, 9);
const CACHE_MS = 10_000;
const SHIPPED = {
  languages: [{ languageCode: 'en', languageName: 'English' }],
  messages: {
    en: { 'login.failed': 'Shipped: wrong', 'error.internal': 'Shipped: broken' },
    de: { 'login.failed': 'Ausgeliefert: falsch' },
  },
};

/** Catalogs over the test's store, kept CACHE_MS, at a clock the test moves; English and Québécois stored. */
async function catalogsOf(store: Store) {
  let at = T0;
  await store.catalogs.setLanguage('en', 'English');
  await store.catalogs.setLanguage('qc', 'Québécois');
  await store.catalogs.putMessages(
    'en',
    {
      'login.failed': 'The user name or password is incorrect.',
      'error.tooManyRequests': 'Wait {duration}.',
    },
    { overwrite: true },
  );
  await store.catalogs.putMessages('qc', { 'login.failed': 'Mauvais mot de passe.' }, { overwrite: true });
  const catalogs = new Catalogs(store, CACHE_MS, () => at, SHIPPED);
  return { catalogs, advance: (ms: number) => (at += ms) };
}

describe.each(STORE_KINDS)('the catalogs on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a language's catalog is its own texts with English filling the keys it lacks",
    async ({ testStore: { store }, expect }) => {
      const { catalogs } = await catalogsOf(store);
      const quebec = await catalogs.dictionary('qc');
      expect(quebec['login.failed']).toBe('Mauvais mot de passe.');
      expect(quebec['error.tooManyRequests']).toBe('Wait {duration}.');
      expect(await catalogs.text('qc', 'error.tooManyRequests', { duration: 'a minute' })).toBe(
        'Wait a minute.',
      );
    },
  );

  storeTest.concurrent(
    "an operator's change shows once the cache has run out, not before; forget shows it at once",
    async ({ testStore: { store }, expect }) => {
      const { catalogs, advance } = await catalogsOf(store);
      const codes = async () => (await catalogs.languages()).map((language) => language.languageCode);
      expect((await catalogs.dictionary('qc'))['login.failed']).toBe('Mauvais mot de passe.');
      expect(await codes()).not.toContain('qd');
      await store.catalogs.putMessages('qc', { 'login.failed': 'Non.' }, { overwrite: true });
      await store.catalogs.setLanguage('qd', 'Other');
      advance(CACHE_MS - 1);
      expect((await catalogs.dictionary('qc'))['login.failed']).toBe('Mauvais mot de passe.');
      expect(await codes()).not.toContain('qd');
      advance(1);
      expect((await catalogs.dictionary('qc'))['login.failed']).toBe('Non.');
      expect(await codes()).toContain('qd');
      await store.catalogs.setLanguage('qe', 'Another');
      expect(await codes()).not.toContain('qe');
      catalogs.forget();
      expect(await codes()).toContain('qe');
    },
  );

  storeTest.concurrent(
    'choose takes the first candidate with a catalog, passing over a user without a language',
    async ({ testStore: { store }, expect }) => {
      const { catalogs } = await catalogsOf(store);
      expect(await catalogs.choose([null, undefined, 'qc-CA'])).toBe('qc');
      expect(await catalogs.choose([null, 'xx'])).toBe('en');
    },
  );
});

describe.each(STORE_KINDS)('the catalogs while the store cannot be read, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'answer the texts read last, else the shipped ones in the language or in English',
    async ({ storeKind, expect }) => {
      const gone = await openTestStore(storeKind);
      const { catalogs, advance } = await catalogsOf(gone.store);
      const read = await catalogs.dictionary('qc');
      const languages = await catalogs.languages();
      await gone.dispose();
      advance(CACHE_MS);
      expect(await catalogs.dictionary('qc')).toMatchObject({
        'login.failed': read['login.failed'],
        'error.internal': 'Shipped: broken',
      });
      expect(await catalogs.languages()).toEqual(languages);
      expect((await catalogs.dictionary('de'))['login.failed']).toBe('Ausgeliefert: falsch');
      expect((await catalogs.dictionary('sv'))['login.failed']).toBe('Shipped: wrong');
      // Nothing read before and nothing shipped: the store's failure is told.
      await expect(new Catalogs(gone.store, CACHE_MS).languages()).rejects.toThrow();
      const fresh = new Catalogs(gone.store, CACHE_MS, () => T0, SHIPPED);
      expect(await fresh.languages()).toEqual(SHIPPED.languages);
    },
  );
});
