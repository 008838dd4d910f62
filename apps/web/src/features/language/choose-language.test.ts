import type { Language } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { chooseLanguage } from './choose-language';

const available: Language[] = [
  { languageCode: 'en', languageName: 'English' },
  { languageCode: 'de', languageName: 'Deutsch' },
  { languageCode: 'fr', languageName: 'Français' },
  { languageCode: 'pt_BR', languageName: 'Português' },
];
const none = { stored: undefined, userLocale: undefined, browserLanguage: undefined };

describe('chooseLanguage (spec section 4)', () => {
  it('takes the stored choice first', () => {
    expect(chooseLanguage({ stored: 'fr', userLocale: 'de', browserLanguage: 'pt-BR' }, available)).toBe(
      'fr',
    );
  });

  it('ignores a stored choice the list does not offer', () => {
    expect(chooseLanguage({ ...none, stored: 'xx', userLocale: 'de' }, available)).toBe('de');
  });

  it('then the user locale, exactly or by its primary part', () => {
    expect(chooseLanguage({ ...none, userLocale: 'de', browserLanguage: 'fr' }, available)).toBe('de');
    expect(chooseLanguage({ ...none, userLocale: 'pt-BR' }, available)).toBe('pt_BR');
    expect(chooseLanguage({ ...none, userLocale: 'de_AT', browserLanguage: 'fr' }, available)).toBe('de');
  });

  it('then the browser language by its primary part', () => {
    expect(chooseLanguage({ ...none, userLocale: 'xx', browserLanguage: 'fr-CA' }, available)).toBe('fr');
    expect(chooseLanguage({ ...none, browserLanguage: 'pt-PT' }, available)).toBe('pt_BR');
  });

  it("falls back to 'en'", () => {
    expect(chooseLanguage({ ...none, userLocale: 'ja', browserLanguage: 'zh-CN' }, available)).toBe('en');
    expect(chooseLanguage({ ...none, stored: 'de' }, [])).toBe('en');
  });
});
