import { describe, expect, it } from 'vitest';
import { isKnownLocale } from './known-locale.js';
import { isTimeZone, sourcedTimeZone } from './time-zone.js';
import {
  InvalidField,
  validAddress,
  validFullName,
  validLocale,
  validTimeZone,
  validUsername,
} from './user-fields.js';

/** The refusal a check throws, or undefined when it accepts the value. */
function refusalOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidField);
    return (error as InvalidField).message;
  }
}

describe("a user's fields, the same rules for every door", () => {
  it('a user name is kept in its canonical form, and one the profile refuses is refused naming it', () => {
    expect(validUsername('Alice')).toBe('alice');
    expect(validUsername('Nina.Novak@Example.ORG')).toBe('nina.novak@example.org');
    expect(refusalOf(() => validUsername('two words'))).toMatch(/^user name "two words": /);
    expect(refusalOf(() => validUsername(''))).toMatch(/^user name "": /);
  });

  it('a full name is trimmed and has 1 to 200 characters on one line', () => {
    expect(validFullName('  Ada Lovelace ')).toBe('Ada Lovelace');
    expect(validFullName('x'.repeat(200))).toHaveLength(200);
    // Spaces around it do not count towards the 200.
    expect(validFullName(` ${'x'.repeat(200)} `)).toHaveLength(200);
    const rule = 'full name must be 1 to 200 characters on one line';
    expect(refusalOf(() => validFullName('x'.repeat(201)))).toBe(rule);
    expect(refusalOf(() => validFullName('   '))).toBe(rule);
    expect(refusalOf(() => validFullName('Ada\nLovelace'))).toBe(rule);
    expect(refusalOf(() => validFullName('Ada\tLovelace'))).toBe(rule);
    expect(refusalOf(() => validFullName('', 'displayName'))).toBe(
      'displayName must be 1 to 200 characters on one line',
    );
  });

  it('a locale is a language code of at most 35 characters', () => {
    for (const locale of ['en', 'de', 'pt_BR', 'pt-BR', 'zh_Hant_TW', 'gsw'])
      expect(validLocale(locale), locale).toBe(locale);
    for (const locale of ['english', 'EN', 'e', 'de_', 'de AT', ''])
      expect(
        refusalOf(() => validLocale(locale)),
        locale,
      ).toBe(`locale "${locale}" is not a language code such as en or pt_BR`);
    expect(refusalOf(() => validLocale('xx', 'preferredLanguage'))).toBeUndefined();
    expect(refusalOf(() => validLocale('x', 'preferredLanguage'))).toMatch(/^preferredLanguage "x"/);
  });

  it('a time zone is one the runtime knows, by its IANA name', () => {
    expect(validTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(validTimeZone('UTC')).toBe('UTC');
    expect(refusalOf(() => validTimeZone('Mars/Olympus'))).toBe(
      'time zone "Mars/Olympus" is not a time zone such as Europe/Berlin or UTC',
    );
    expect(refusalOf(() => validTimeZone(''))).toMatch(/^time zone ""/);
    expect(refusalOf(() => validTimeZone('CEST', 'zone'))).toMatch(/^zone "CEST"/);
  });

  it("a channel's address is stored canonical, or refused saying what its type takes", () => {
    expect(validAddress('mobile', '+49 170 5550112')).toBe('+491705550112');
    expect(validAddress('telephone', '0049 30 5550156')).toBe('+49305550156');
    // The domain in lower case; the local part as written (a mailbox may tell its cases apart).
    expect(validAddress('email', ' Ann@Example.ORG ')).toBe('Ann@example.org');
    expect(validAddress('twitter', '@chris_channel')).toBe('@chris_channel');
    expect(refusalOf(() => validAddress('email', 'ann at example'))).toBe(
      'email needs an e-mail address such as name@example.com, not "ann at example"',
    );
    expect(refusalOf(() => validAddress('personalTwitter', 'not a handle!'))).toBe(
      'personalTwitter needs an X handle such as @name, not "not a handle!"',
    );
    expect(refusalOf(() => validAddress('personalMobile', 'call me'))).toBe(
      'personalMobile needs an international phone number such as +49 170 5550112 (or 0049 170 5550112), not "call me"',
    );
  });
});

describe("a source's time zone and language", () => {
  it('a time zone that is none is left out with a warning; none and unsaid are passed on as given', () => {
    const warnings: string[] = [];
    expect(sourcedTimeZone('Europe/Berlin', warnings)).toBe('Europe/Berlin');
    expect(sourcedTimeZone(null, warnings)).toBeNull();
    expect(sourcedTimeZone(undefined, warnings)).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(sourcedTimeZone('Mars/Olympus', warnings)).toBeUndefined();
    expect(sourcedTimeZone('', warnings)).toBeUndefined();
    expect(warnings).toEqual([
      'timeZone: "Mars/Olympus" is not a time zone',
      'timeZone: "" is not a time zone',
    ]);
  });

  it('a time zone keeps its answer once many made-up names have been asked about', () => {
    expect(isTimeZone('America/New_York')).toBe(true);
    for (let index = 0; index < 1_100; index += 1) expect(isTimeZone(`Made/Up_${index}`)).toBe(false);
    // Past the bound of the names kept, a name is still answered rightly, asked afresh.
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Made/Up_1099')).toBe(false);
  });

  it("a source's language is known by its catalog exactly, or by its primary language", () => {
    const languages = ['en', 'de', 'pt_BR'];
    expect(isKnownLocale('pt_BR', languages)).toBe(true);
    expect(isKnownLocale('pt-br', languages)).toBe(true);
    expect(isKnownLocale(' DE_AT ', languages)).toBe(true);
    expect(isKnownLocale('de', languages)).toBe(true);
    expect(isKnownLocale('en-GB', languages)).toBe(true);
    expect(isKnownLocale('xx_YY', languages)).toBe(false);
    // A catalog of a region only does not make its language known for another region.
    expect(isKnownLocale('pt_PT', languages)).toBe(false);
    expect(isKnownLocale('fr', languages)).toBe(false);
    expect(isKnownLocale('', languages)).toBe(false);
  });
});
