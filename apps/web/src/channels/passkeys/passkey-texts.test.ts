import { BUILT_IN_LANGUAGES, placeholdersOf } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { PASSKEY_TEXTS, passkeyTextsOf, type PasskeyTextKey } from './passkey-texts';

describe('the passkey texts', () => {
  it('speak every language the product ships, with the placeholders of the English texts', () => {
    const english = PASSKEY_TEXTS.en!;
    for (const { languageCode } of BUILT_IN_LANGUAGES) {
      const texts = PASSKEY_TEXTS[languageCode];
      expect(texts, languageCode).toBeDefined();
      for (const key of Object.keys(english) as PasskeyTextKey[]) {
        expect(texts?.[key].trim(), `${languageCode} ${key}`).not.toBe('');
        expect(placeholdersOf(texts?.[key] ?? ''), `${languageCode} ${key}`).toEqual(
          placeholdersOf(english[key]),
        );
      }
    }
  });

  it("take a regional language's own texts, else its language's, else English", () => {
    expect(passkeyTextsOf('pt_BR')).toBe(PASSKEY_TEXTS.pt);
    expect(passkeyTextsOf('xx')).toBe(PASSKEY_TEXTS.en);
  });
});
