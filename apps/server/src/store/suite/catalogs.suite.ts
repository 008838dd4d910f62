import { describe } from 'vitest';
import { storeCase } from './store-fixture.js';

/** Catalogs of texts by language. */
export function catalogsSuite(): void {
  describe.concurrent('catalogs', () => {
    storeCase('sets languages with an upsert and lists them by code', async ({ store, expect }) => {
      expect(await store.catalogs.listLanguages()).toEqual([]);
      await store.catalogs.setLanguage('en', 'English');
      await store.catalogs.setLanguage('de', 'Deutsch');
      await store.catalogs.setLanguage('en', 'English (US)');
      expect(await store.catalogs.listLanguages()).toEqual([
        { code: 'de', name: 'Deutsch' },
        { code: 'en', name: 'English (US)' },
      ]);
    });

    storeCase(
      'adds only missing keys without overwrite, replaces with overwrite',
      async ({ store, expect }) => {
        await store.catalogs.setLanguage('en', 'English');
        await store.catalogs.setLanguage('de', 'Deutsch');
        await store.catalogs.putMessages('en', { hello: 'Hello', bye: 'Bye' }, { overwrite: false });
        await store.catalogs.putMessages('de', { hello: 'Hallo' }, { overwrite: false });

        await store.catalogs.putMessages(
          'en',
          { hello: 'Hi (shipped)', thanks: 'Thanks' },
          { overwrite: false },
        );
        expect(await store.catalogs.messages('en')).toEqual({ hello: 'Hello', bye: 'Bye', thanks: 'Thanks' });

        await store.catalogs.putMessages('en', { hello: 'Howdy', new: 'New' }, { overwrite: true });
        expect(await store.catalogs.messages('en')).toEqual({
          hello: 'Howdy',
          bye: 'Bye',
          thanks: 'Thanks',
          new: 'New',
        });
        expect(await store.catalogs.messages('de')).toEqual({ hello: 'Hallo' });
        await expect(store.catalogs.putMessages('en', {}, { overwrite: true })).resolves.toBeUndefined();
      },
    );

    storeCase(
      'keeps every text as written: quotes, backslashes, new lines, other scripts, placeholders',
      async ({ store, expect }) => {
        await store.catalogs.setLanguage('ar', 'العربية');
        const texts = {
          'quote.and.slash': 'He said "stop" \\ then left',
          'two.lines': 'first\nsecond\ttabbed',
          'other.scripts': 'رمز الطوارئ — 緊急コード — ¿listo?',
          placeholder: 'Hello {name}, {count, plural, one {# code} other {# codes}}',
          'json.looking': '{"error": 0, "result": null}',
          empty: '',
        };
        await store.catalogs.putMessages('ar', texts, { overwrite: false });
        expect(await store.catalogs.messages('ar')).toEqual(texts);
      },
    );

    storeCase('writes more than one batch of keys in one call', async ({ store, expect }) => {
      await store.catalogs.setLanguage('en', 'English');
      const many = Object.fromEntries(Array.from({ length: 450 }, (_, i) => [`key.${i}`, `text ${i}`]));
      await store.catalogs.putMessages('en', many, { overwrite: false });
      expect(await store.catalogs.messages('en')).toEqual(many);

      const changed = Object.fromEntries(Object.keys(many).map((key) => [key, `${many[key]} v2`]));
      await store.catalogs.putMessages('en', changed, { overwrite: false });
      expect(await store.catalogs.messages('en')).toEqual(many);
      await store.catalogs.putMessages('en', changed, { overwrite: true });
      expect(await store.catalogs.messages('en')).toEqual(changed);
    });

    storeCase('answers no messages for an unknown language', async ({ store, expect }) => {
      expect(await store.catalogs.messages('xx')).toEqual({});
    });
  });
}
