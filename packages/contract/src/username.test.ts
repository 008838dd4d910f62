import { describe, expect, it } from 'vitest';
import { canonicalUsername, checkUsername, usernameOrThrow, usernameRefusalText } from './username.js';

describe('canonicalUsername (RFC 8265 UsernameCaseMapped)', () => {
  it.each([
    ['lalice', 'lalice'],
    ['LAlice', 'lalice'],
    ['  lalice\t', 'lalice'],
    ['ｌalice', 'lalice'], // fullwidth l (width mapping)
    ['ｌａｌｉｃｅ', 'lalice'],
    ['ＬＡＬＩＣＥ', 'lalice'],
    ['\u3000lalice', 'lalice'], // ideographic space around the name
    ['Straße', 'strasse'], // full case folding
    ['STRASSE', 'strasse'],
    ['ẞ', 'ss'],
    ['ΣΑΣ', 'σασ'], // no final sigma: folding is per code point
    ['ας', 'ασ'],
    ['ı', 'ı'], // dotless i folds to itself
    ['İ', 'i\u0307'],
    ['ꭰ', 'Ꭰ'], // Cherokee folds to its capitals
    ['ᾳ', 'αι'],
    ['e\u0301', 'é'], // NFC
    ['alice@example.com', 'alice@example.com'],
    ['l·l', 'l·l'], // Catalan middle dot between two l
    ['אב', 'אב'],
    ['अनु\u094D\u200D', 'अनु\u094D\u200D'], // zero width joiner after a virama
  ])('%j is %j', (typed, canonical) => {
    expect(canonicalUsername(typed)).toBe(canonical);
  });

  it.each([
    ['𝐥alice', 'U+1D425'], // mathematical bold l: a compatibility form
    ['ℓalice', 'U+2113'],
    ['ﬁle', 'U+FB01'], // refused before case folding could make it "fi"
    ['ǅ', 'U+01C5'], // titlecase: not in the IdentifierClass
    ['Ⅻ', 'U+216B'],
    ['a\u00A0b', 'U+00A0'],
    ['alice\u0000', 'U+0000'],
    ['al\u200Bice', 'U+200B'], // zero width space: default ignorable
    ['🙂', 'U+1F642'],
    ['a\u0640b', 'U+0640'], // an exception of RFC 5892
    ['john smith', 'U+0020'], // one word: RADIUS and the sign-in form take no spaces
  ])('refuses %j (%s)', (typed, codePoint) => {
    const checked = checkUsername(typed);
    expect(checked).toMatchObject({ ok: false, reason: 'disallowed-character', codePoint });
  });

  it.each([
    ['a·b', 'context'], // middle dot outside l·l
    ['x\u200Dy', 'context'], // joiner not after a virama
    ['\u0663\u06F3', 'context'], // Arabic-Indic and extended Arabic-Indic digits mixed
    ['abcא', 'bidi'],
    ['אabc', 'bidi'],
    ['1א', 'bidi'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('refuses %j (%s)', (typed, reason) => {
    expect(checkUsername(typed)).toMatchObject({ ok: false, reason });
  });

  it('refuses names longer than 200 characters', () => {
    expect(checkUsername('a'.repeat(200))).toMatchObject({ ok: true });
    expect(checkUsername('a'.repeat(201))).toMatchObject({ ok: false, reason: 'too-long' });
  });

  it('is idempotent on every name it makes', () => {
    for (const typed of ['ｌalice', 'Straße', 'ꭰꭱ', 'İstanbul', 'ΣΑΣ', 'John', 'ᾳ'])
      expect(canonicalUsername(usernameOrThrow(typed))).toBe(usernameOrThrow(typed));
  });

  it('says why a name is refused, naming the character', () => {
    const checked = checkUsername('𝐥alice');
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(usernameRefusalText(checked)).toContain('U+1D425');
  });
});
