import { describe, expect, it } from 'vitest';
import type { Language } from './api.js';
import { PAGE_CALLS, choosePageLanguage, pageCallKey } from './page-startup.js';

const available: Language[] = [
  { languageCode: 'en', languageName: 'English' },
  { languageCode: 'de', languageName: 'Deutsch' },
  { languageCode: 'fr', languageName: 'Français' },
  { languageCode: 'pt_BR', languageName: 'Português' },
];
const none = { stored: undefined, userLocale: undefined, browserLanguage: undefined };

describe('choosePageLanguage (spec section 4)', () => {
  it('takes the stored choice first', () => {
    expect(choosePageLanguage({ stored: 'fr', userLocale: 'de', browserLanguage: 'pt-BR' }, available)).toBe(
      'fr',
    );
  });

  it('ignores a stored choice the list does not offer', () => {
    expect(choosePageLanguage({ ...none, stored: 'xx', userLocale: 'de' }, available)).toBe('de');
  });

  it('then the user locale, exactly or by its primary part', () => {
    expect(choosePageLanguage({ ...none, userLocale: 'de', browserLanguage: 'fr' }, available)).toBe('de');
    expect(choosePageLanguage({ ...none, userLocale: 'pt-BR' }, available)).toBe('pt_BR');
    expect(choosePageLanguage({ ...none, userLocale: 'de_AT', browserLanguage: 'fr' }, available)).toBe('de');
  });

  it('then the browser language by its primary part', () => {
    expect(choosePageLanguage({ ...none, userLocale: 'xx', browserLanguage: 'fr-CA' }, available)).toBe('fr');
    expect(choosePageLanguage({ ...none, browserLanguage: 'pt-PT' }, available)).toBe('pt_BR');
  });

  it("falls back to 'en'", () => {
    expect(choosePageLanguage({ ...none, userLocale: 'ja', browserLanguage: 'zh-CN' }, available)).toBe('en');
    expect(choosePageLanguage({ ...none, stored: 'de' }, [])).toBe('en');
  });
});

describe('pageCallKey', () => {
  it('names method, path, query and body, so an answer is taken only for exactly its call', () => {
    expect(pageCallKey(PAGE_CALLS.userInfo())).toBe('POST userinfo {}');
    expect(pageCallKey(PAGE_CALLS.languageList())).toBe('GET resourceFile/getLanguageList');
    expect(pageCallKey(PAGE_CALLS.messages('messages'))).toBe('GET message');
    expect(pageCallKey(PAGE_CALLS.messages('messages_pt_BR'))).toBe('GET message?lang=pt_BR');
    expect(pageCallKey(PAGE_CALLS.policy('u-1'))).toBe(
      'POST user/getPolicy {"user":{"id":"u-1"},"category":{"name":"Self Service"},"return":["options"]}',
    );
    expect(pageCallKey(PAGE_CALLS.userLocale('u-1'))).not.toBe(pageCallKey(PAGE_CALLS.userLocale('u-2')));
    expect(pageCallKey(PAGE_CALLS.availableChannels('u-1'))).toBe(
      'POST user/queryAvailableChannels {"action":"ec","user":{"id":"u-1"}}',
    );
  });

  it('leaves out query values that are not set and gives a POST without a body an empty one', () => {
    expect(pageCallKey({ method: 'GET', path: 'message', query: { lang: undefined } })).toBe('GET message');
    expect(pageCallKey({ method: 'POST', path: 'userinfo' })).toBe('POST userinfo {}');
  });
});
