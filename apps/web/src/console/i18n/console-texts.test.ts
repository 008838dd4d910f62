import { BUILT_IN_LANGUAGES, placeholdersOf } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import {
  chooseConsoleLanguage,
  CONSOLE_LANGUAGES,
  createConsoleTranslator,
  ENGLISH_CONSOLE_TEXTS,
  loadConsoleTexts,
} from './console-texts';

const catalogs = import.meta.glob<{ default: Record<string, string> }>('../texts/*.json', { eager: true });

describe('the console texts', () => {
  it('ships all 11 languages of the page, each catalog with every English key and its placeholders', () => {
    const codes = CONSOLE_LANGUAGES.map((language) => language.languageCode);
    expect(codes).toEqual(BUILT_IN_LANGUAGES.map((language) => language.languageCode));
    for (const [file, { default: texts }] of Object.entries(catalogs)) {
      expect(Object.keys(texts).sort(), file).toEqual(Object.keys(ENGLISH_CONSOLE_TEXTS).sort());
      for (const [key, english] of Object.entries(ENGLISH_CONSOLE_TEXTS)) {
        expect(texts[key]?.trim(), `${file} ${key}`).not.toBe('');
        expect(placeholdersOf(texts[key] ?? ''), `${file} ${key}`).toEqual(placeholdersOf(english));
      }
    }
  });

  it('loads a language and fills placeholders', async () => {
    const t = createConsoleTranslator(await loadConsoleTexts('de'));
    expect(t('helpdesk.found', { count: 3 })).toBe('Gefundene Benutzer: 3');
    expect(createConsoleTranslator(await loadConsoleTexts('xx'))('signOut')).toBe('Sign out');
  });

  it("chooses the stored language, else the browser's, else English", () => {
    expect(chooseConsoleLanguage('ar', ['de-DE'])).toBe('ar');
    expect(chooseConsoleLanguage('klingon', ['sv-SE', 'de-AT'])).toBe('de');
    expect(chooseConsoleLanguage(null, ['DE'])).toBe('de');
    expect(chooseConsoleLanguage(null, ['sv-SE'])).toBe('en');
  });
});
