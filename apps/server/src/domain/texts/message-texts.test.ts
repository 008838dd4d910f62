import { TEXT_KEYS } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { RuleError } from '../rule-error.js';
import {
  addLanguage,
  checkTexts,
  importTexts,
  languageCodeProblem,
  textsBesideEnglish,
} from './message-texts.js';

const T0 = Date.UTC(2026, 11, 7, 9);

/** What a rule refuses: its message and kind; a function that does not throw answers undefined. */
async function refusalOf(run: () => unknown): Promise<[string, string] | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return [error.message, error.kind];
  }
}

/** A store with English and Québécois, each with one text of its own. */
async function withLanguages(store: Store): Promise<void> {
  await store.catalogs.setLanguage('en', 'English');
  await store.catalogs.setLanguage('qc', 'Québécois');
  await store.catalogs.putMessages('en', { 'login.failed': 'Wrong.' }, { overwrite: true });
  await store.catalogs.putMessages('qc', { 'login.failed': 'Mauvais.' }, { overwrite: true });
}

describe('texts checked one by one', () => {
  it('are one object of known text keys to non-empty strings, answered as given', async () => {
    const texts = { 'login.failed': 'Falsch.', 'login.locked': 'Warten Sie {duration}.' };
    expect(checkTexts(texts)).toEqual(texts);
    for (const content of [null, 'text', ['login.failed'], 3])
      expect(await refusalOf(() => checkTexts(content)), JSON.stringify(content)).toEqual([
        'the texts must be one JSON object of text key -> text',
        'invalid',
      ]);
    for (const text of ['', '   ', 7])
      expect((await refusalOf(() => checkTexts({ 'login.failed': text })))?.[0]).toBe(
        'login.failed: the text must be a non-empty string',
      );
  });

  it('name the unknown keys, five at most', async () => {
    expect((await refusalOf(() => checkTexts({ 'no.such': 'x', 'login.failed': 'y' })))?.[0]).toBe(
      'unknown text key: no.such',
    );
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [`no.${name}`, 'x']));
    expect((await refusalOf(() => checkTexts(six)))?.[0]).toBe(
      'unknown text keys: no.a, no.b, no.c, no.d, no.e, ...',
    );
  });

  it("keep English's placeholders: none missing, none added", async () => {
    expect((await refusalOf(() => checkTexts({ 'login.locked': 'Warten Sie.' })))?.[0]).toBe(
      'login.locked: placeholders none differ from English {duration}',
    );
    expect((await refusalOf(() => checkTexts({ 'login.failed': 'Falsch, {name}.' })))?.[0]).toBe(
      'login.failed: placeholders {name} differ from English none',
    );
  });

  it('language codes such as de, pt_BR or zh-Hans, of 35 characters at most', () => {
    for (const code of ['de', 'pt_BR', 'zh-Hans']) expect(languageCodeProblem(code), code).toBeUndefined();
    for (const code of ['', 'de DE', '../en', 'd'.repeat(36)])
      expect(languageCodeProblem(code), code).toBe(
        `"${code}" is not a language code such as de, pt_BR or zh-Hans`,
      );
  });
});

describe.each(STORE_KINDS)('the texts of a language on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'an import adds the missing texts and replaces differing ones only when told, audited with the counts',
    async ({ testStore: { store }, expect }) => {
      await withLanguages(store);
      const texts = { 'login.failed': 'Non.', 'error.internal': 'Panne.' };
      const options = { actor: 'cli', now: T0 };
      expect(await importTexts(store, 'qc', texts, { ...options, overwrite: false })).toEqual({
        added: 1,
        replaced: 0,
        differing: 1,
      });
      expect(await store.catalogs.messages('qc')).toMatchObject({
        'login.failed': 'Mauvais.',
        'error.internal': 'Panne.',
      });
      expect(await importTexts(store, 'qc', texts, { ...options, overwrite: true })).toEqual({
        added: 0,
        replaced: 1,
        differing: 1,
      });
      expect((await store.catalogs.messages('qc'))['login.failed']).toBe('Non.');
      expect(
        (await store.audit.list({ event: 'messages.imported', limit: 10 })).map((entry) => [
          entry.actor,
          entry.details,
        ]),
      ).toEqual([
        ['cli', { language: 'qc', added: 0, replaced: 1 }],
        ['cli', { language: 'qc', added: 1, replaced: 0 }],
      ]);
    },
  );

  storeTest.concurrent(
    'an import into a language that does not exist is refused and writes nothing',
    async ({ testStore: { store }, expect }) => {
      await withLanguages(store);
      expect(
        await refusalOf(() =>
          importTexts(store, 'qx', { 'login.failed': 'x' }, { overwrite: true, actor: 'cli', now: T0 }),
        ),
      ).toEqual(['unknown language qx (dea messages add-language qx <name> adds it)', 'missing']);
      expect(await store.catalogs.messages('qx')).toEqual({});
      expect(await store.audit.list({ event: 'messages.imported', limit: 10 })).toEqual([]);
    },
  );

  storeTest.concurrent(
    'every text key beside its English text, null where the language has none',
    async ({ testStore: { store }, expect }) => {
      await withLanguages(store);
      const rows = await textsBesideEnglish(store, 'qc');
      expect(rows.map((row) => row.key)).toEqual([...TEXT_KEYS]);
      expect(rows.find((row) => row.key === 'login.failed')).toEqual({
        key: 'login.failed',
        english: 'Wrong.',
        text: 'Mauvais.',
      });
      expect(rows.find((row) => row.key === 'login.locked')).toMatchObject({ text: null });
      expect(rows.find((row) => row.key === 'login.locked')?.english).toContain('{duration}');
    },
  );

  storeTest.concurrent(
    'a new language starts from the texts of another, audited; the name is trimmed',
    async ({ testStore: { store }, expect }) => {
      await withLanguages(store);
      expect(
        await addLanguage(store, { code: 'qd', name: '  Dialect ', from: 'qc' }, 'console:admin', T0),
      ).toBe(1);
      expect(await store.catalogs.messages('qd')).toEqual({ 'login.failed': 'Mauvais.' });
      expect((await store.catalogs.listLanguages()).find((row) => row.code === 'qd')?.name).toBe('Dialect');
      expect(await store.audit.list({ event: 'language.added', limit: 10 })).toMatchObject([
        { actor: 'console:admin', details: { language: 'qd', from: 'qc' } },
      ]);
      expect(await addLanguage(store, { code: 'qn', name: 'n'.repeat(100), from: 'en' }, 'cli', T0)).toBe(1);
    },
  );

  storeTest.concurrent(
    'a new language is refused for a bad code, a name empty or over 100 characters, an unknown source or a code that exists, and nothing is written',
    async ({ testStore: { store }, expect }) => {
      await withLanguages(store);
      const add =
        (code: string, name: string, from = 'en') =>
        () =>
          addLanguage(store, { code, name, from }, 'cli', T0);
      expect(await refusalOf(add('q d', 'Name'))).toEqual([
        '"q d" is not a language code such as de, pt_BR or zh-Hans',
        'invalid',
      ]);
      expect(await refusalOf(add('qd', 'Name', '../en'))).toMatchObject([
        expect.stringContaining('"../en"'),
        'invalid',
      ]);
      for (const name of ['  ', 'n'.repeat(101)])
        expect(await refusalOf(add('qd', name))).toEqual(['the name must be 1 to 100 characters', 'invalid']);
      expect(await refusalOf(add('qd', 'Name', 'qz'))).toEqual(['unknown language qz', 'missing']);
      expect(await refusalOf(add('qc', 'Again'))).toEqual(['language qc already exists', 'conflict']);
      expect((await store.catalogs.messages('qc'))['login.failed']).toBe('Mauvais.');
      expect((await store.catalogs.listLanguages()).map((row) => row.code)).not.toContain('qd');
      expect(await store.audit.list({ event: 'language.added', limit: 10 })).toEqual([]);
    },
  );
});
