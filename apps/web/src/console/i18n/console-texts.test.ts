import { BUILT_IN_LANGUAGES } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi } from '../testing/render-console';
import {
  chooseConsoleLanguage,
  createConsoleTranslator,
  loadConsoleLanguages,
  loadConsoleTexts,
} from './console-texts';

describe('the console texts', () => {
  it("are the catalogs' console group, loaded from the server with the page's calls, placeholders filled", async () => {
    const calls = fakeConsoleApi({});
    expect(await loadConsoleLanguages()).toEqual(BUILT_IN_LANGUAGES);
    const t = createConsoleTranslator(await loadConsoleTexts('de'));
    expect(t('helpdesk.found', { count: 3 })).toBe('Gefundene Benutzer: 3');
    expect(t('title')).toBe('Emergency-Access-Konsole');
    expect(createConsoleTranslator(await loadConsoleTexts('en'))('signOut')).toBe('Sign out');
    expect(calls).toEqual([]);
  });

  it('shows the key of a text the catalog lacks, and fails when the server does not answer a catalog', async () => {
    expect(createConsoleTranslator({})('signOut')).toBe('console.signOut');
    fakeConsoleApi({
      'GET /dea/api/message': () => ({ status: 503, body: 'busy', offContract: 'a failure' }),
    });
    await expect(loadConsoleTexts('de')).rejects.toThrow('HTTP 503');
  });

  it("chooses the stored language, else the browser's, else English, among the catalogs' languages", () => {
    const languages = [...BUILT_IN_LANGUAGES, { languageCode: 'pt_BR', languageName: 'Português (Brasil)' }];
    expect(chooseConsoleLanguage('ar', ['de-DE'], languages)).toBe('ar');
    expect(chooseConsoleLanguage('klingon', ['sv-SE', 'de-AT'], languages)).toBe('de');
    expect(chooseConsoleLanguage(null, ['DE'], languages)).toBe('de');
    expect(chooseConsoleLanguage(null, ['sv-SE'], languages)).toBe('en');
    expect(chooseConsoleLanguage('pt_BR', [], languages)).toBe('pt_BR');
    expect(chooseConsoleLanguage('pt_BR', [], BUILT_IN_LANGUAGES)).toBe('en');
  });
});
