import { describe, expect, it } from 'vitest';
import { acceptedLanguages, chooseLanguage } from './language.js';

const available = ['en', 'de', 'fr', 'pt', 'zh', 'pt_BR'];

describe('chooseLanguage', () => {
  it('takes the first candidate it has a catalog for, exact code first', () => {
    expect(chooseLanguage(['de'], available)).toBe('de');
    expect(chooseLanguage(['pt_BR'], available)).toBe('pt_BR');
    expect(chooseLanguage(['pt-br'], available)).toBe('pt_BR');
    expect(chooseLanguage(['sv', 'fr', 'de'], available)).toBe('fr');
  });

  it('falls back to the primary part of a code', () => {
    expect(chooseLanguage(['de_AT'], available)).toBe('de');
    expect(chooseLanguage(['zh-Hans-CN'], available)).toBe('zh');
    expect(chooseLanguage(['pt_PT'], ['en', 'pt'])).toBe('pt');
    expect(chooseLanguage(['DE'], available)).toBe('de');
  });

  it('falls back to English when nothing matches, skipping empty candidates', () => {
    expect(chooseLanguage([undefined, '', 'sv', 'ja'], available)).toBe('en');
    expect(chooseLanguage([], available)).toBe('en');
    expect(chooseLanguage([undefined, ' fr '], available)).toBe('fr');
  });
});

describe('acceptedLanguages', () => {
  it('orders by quality, keeping the header order between equals', () => {
    expect(acceptedLanguages('fr;q=0.5, de, en;q=0.8')).toEqual(['de', 'en', 'fr']);
    expect(acceptedLanguages('de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7')).toEqual(['de-DE', 'de', 'en-US', 'en']);
    expect(acceptedLanguages('nl, fr')).toEqual(['nl', 'fr']);
  });

  it('drops refused languages, the wildcard and empty parts', () => {
    expect(acceptedLanguages('de;q=0, *, fr;q=0.1, ,')).toEqual(['fr']);
    expect(acceptedLanguages('')).toEqual([]);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });

  it('chooses with the request header as the page expects', () => {
    expect(chooseLanguage(acceptedLanguages('sv-SE, de;q=0.7, en;q=0.3'), available)).toBe('de');
  });
});
