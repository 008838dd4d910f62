/**
 * The one canonical form of a user name: the PRECIS UsernameCaseMapped profile of RFC 8265
 * (section 3.3), on the IdentifierClass of RFC 8264 (section 9.1). Every name the product looks
 * up, compares, limits, stores or audits is made by `canonicalUsername` first, whichever door it
 * came through (ADR 0016): `ｌalice`, `LALICE` and `lalice` are one person, and `𝐥alice` (a
 * compatibility form) is no name at all, so it never reaches a directory that would match it.
 *
 * A name is one userpart (RFC 8265 section 3.1 leaves spaces to the application: ours has none,
 * since RADIUS, /validate/check and the sign-in form take one word); space around the name, as
 * typed, is not part of it.
 */

declare const usernameBrand: unique symbol;

/** A user name in its canonical form: only `canonicalUsername` makes one. */
export type Username = string & { readonly [usernameBrand]: true };

export type UsernameRefusal =
  | { reason: 'empty' }
  | { reason: 'too-long'; max: number }
  | { reason: 'disallowed-character'; character: string; codePoint: string }
  | { reason: 'context'; character: string; codePoint: string }
  | { reason: 'bidi' };

export type UsernameCheck = { ok: true; username: Username } | ({ ok: false } & UsernameRefusal);

/** Longer names are refused: no directory or identity provider of ours has longer ones. */
export const USERNAME_MAX_LENGTH = 200;

const hex = (codePoint: number): string => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Width mapping (RFC 8265 3.3.2 rule 1): fullwidth and halfwidth characters to their
 * decomposition. Every character with a <wide> or <narrow> decomposition is U+3000 or in the
 * Halfwidth and Fullwidth Forms block, and none there has another kind of decomposition.
 */
function widthMapped(character: string, codePoint: number): string {
  return codePoint === 0x3000 || (codePoint >= 0xff00 && codePoint <= 0xffef)
    ? character.normalize('NFKC')
    : character;
}

/**
 * Unicode Default Case Folding (full; RFC 8265 3.3.2 rule 3), one code point at a time (so no
 * final-sigma context applies). Upper then lower case gives the full folding for every code point
 * but three: dotless i (folds to itself), capital sharp s (folds to "ss") and Cherokee, whose
 * folding goes to the capitals. Checked against CaseFolding.txt's C and F entries (ADR 0016).
 */
function caseFolded(character: string, codePoint: number): string {
  if (codePoint === 0x0131) return character;
  if (codePoint === 0x1e9e) return 'ss';
  if ((codePoint >= 0x13a0 && codePoint <= 0x13fd) || (codePoint >= 0xab70 && codePoint <= 0xabbf))
    return character.toUpperCase();
  return character.toUpperCase().toLowerCase();
}

// RFC 5892 section 2.6, the exceptions that come before every other rule of RFC 8264 section 8.
const EXCEPTIONS_PVALID = new Set([0x00df, 0x03c2, 0x06fd, 0x06fe, 0x0f0b, 0x3007]);
const EXCEPTIONS_DISALLOWED = new Set([
  0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b,
]);
const EXCEPTIONS_CONTEXTO = new Set([0x00b7, 0x0375, 0x05f3, 0x05f4, 0x30fb]);
const isArabicIndicDigit = (cp: number): boolean => cp >= 0x0660 && cp <= 0x0669;
const isExtendedArabicIndicDigit = (cp: number): boolean => cp >= 0x06f0 && cp <= 0x06f9;

const LETTER_DIGITS = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const IGNORABLE_OR_NONCHARACTER = /^[\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]$/u;
const UNASSIGNED_OR_PRIVATE = /^[\p{Cn}\p{Co}\p{Cs}\p{Cc}]$/u;
const JOIN_CONTROL = /^\p{Join_Control}$/u;
/** Hangul_Syllable_Type L, V or T: the conjoining jamo blocks. */
const isOldHangulJamo = (cp: number): boolean =>
  (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff);

type Derived = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED';

/** The derived property of RFC 8264 section 8, as the IdentifierClass reads it. */
function derivedProperty(character: string, cp: number): Derived {
  if (EXCEPTIONS_PVALID.has(cp)) return 'PVALID';
  if (EXCEPTIONS_DISALLOWED.has(cp)) return 'DISALLOWED';
  if (EXCEPTIONS_CONTEXTO.has(cp) || isArabicIndicDigit(cp) || isExtendedArabicIndicDigit(cp))
    return 'CONTEXTO';
  if (UNASSIGNED_OR_PRIVATE.test(character)) return 'DISALLOWED';
  if (cp >= 0x21 && cp <= 0x7e) return 'PVALID'; // ASCII7
  if (JOIN_CONTROL.test(character)) return 'CONTEXTJ';
  if (isOldHangulJamo(cp)) return 'DISALLOWED';
  if (IGNORABLE_OR_NONCHARACTER.test(character)) return 'DISALLOWED';
  if (character.normalize('NFKC') !== character) return 'DISALLOWED'; // HasCompat
  if (LETTER_DIGITS.test(character)) return 'PVALID';
  // OtherLetterDigits, spaces, symbols, punctuation: not in the IdentifierClass.
  return 'DISALLOWED';
}

/** Canonical_Combining_Class Virama (9), which JavaScript cannot ask for (Unicode 14). */
const VIRAMAS = new Set([
  0x94d, 0x9cd, 0xa4d, 0xacd, 0xb4d, 0xbcd, 0xc4d, 0xccd, 0xd3b, 0xd3c, 0xd4d, 0xdca, 0xe3a, 0xeba, 0xf84,
  0x1039, 0x103a, 0x1714, 0x1715, 0x1734, 0x17d2, 0x1a60, 0x1b44, 0x1baa, 0x1bab, 0x1bf2, 0x1bf3, 0x2d7f,
  0xa806, 0xa82c, 0xa8c4, 0xa953, 0xa9c0, 0xaaf6, 0xabed, 0x10a3f, 0x11046, 0x11070, 0x1107f, 0x110b9,
  0x11133, 0x11134, 0x111c0, 0x11235, 0x112ea, 0x1134d, 0x11442, 0x114c2, 0x115bf, 0x1163f, 0x116b6, 0x1172b,
  0x11839, 0x1193d, 0x1193e, 0x119e0, 0x11a34, 0x11a47, 0x11a99, 0x11c3f, 0x11d44, 0x11d45, 0x11d97,
]);
const isScript = (script: string) => new RegExp(`^\\p{Script=${script}}$`, 'u');
const GREEK = isScript('Greek');
const HEBREW = isScript('Hebrew');
const KANA_OR_HAN = /^[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]$/u;

/** The contextual rules of RFC 5892 appendix A for the code points that need one. */
function contextAllows(characters: readonly string[], index: number, kind: 'CONTEXTJ' | 'CONTEXTO'): boolean {
  const cp = characters[index]!.codePointAt(0)!;
  const before = characters[index - 1];
  const after = characters[index + 1];
  // ZERO WIDTH (NON-)JOINER right after a virama only. The joining-type alternative of RFC 5892
  // A.1 for Arabic script is not taken: such a name is refused (ADR 0016).
  if (kind === 'CONTEXTJ') return before !== undefined && VIRAMAS.has(before.codePointAt(0)!);
  if (cp === 0x00b7) return before === 'l' && after === 'l'; // MIDDLE DOT, Catalan l·l
  if (cp === 0x0375) return after !== undefined && GREEK.test(after); // GREEK KERAIA
  if (cp === 0x05f3 || cp === 0x05f4) return before !== undefined && HEBREW.test(before); // GERESH
  if (cp === 0x30fb) return characters.some((character) => KANA_OR_HAN.test(character)); // KATAKANA MIDDLE DOT
  // Arabic-Indic digits and extended Arabic-Indic digits never mixed.
  const arabic = characters.some((c) => isArabicIndicDigit(c.codePointAt(0)!));
  const extended = characters.some((c) => isExtendedArabicIndicDigit(c.codePointAt(0)!));
  return !(arabic && extended);
}

// Bidi classes as far as the Bidi Rule needs them (RFC 5893 section 2).
const RIGHT_TO_LEFT =
  /^[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Yezidi}\p{Script=Imperial_Aramaic}\p{Script=Phoenician}\p{Script=Kharoshthi}\p{Script=Old_South_Arabian}\p{Script=Avestan}\p{Script=Mende_Kikakui}]$/u;
const NONSPACING = /^[\p{Mn}\p{Me}]$/u;
const EUROPEAN_DIGIT = /^[0-9]$/;
const isArabicNumber = (cp: number): boolean => isArabicIndicDigit(cp) || (cp >= 0x066b && cp <= 0x066c);

/**
 * The Bidi Rule of RFC 5893, which RFC 8265 applies to user names: a name with right-to-left
 * characters reads one way only. Letters and digits of right-to-left scripts are R/AL (their
 * digits AN), ASCII digits EN, other letters L; marks NSM; the rest of ASCII7 ON.
 */
function bidiRuleHolds(characters: readonly string[]): boolean {
  const classOf = (character: string): 'R' | 'AN' | 'EN' | 'NSM' | 'L' | 'ON' => {
    const cp = character.codePointAt(0)!;
    if (isArabicNumber(cp)) return 'AN';
    if (EUROPEAN_DIGIT.test(character) || isExtendedArabicIndicDigit(cp)) return 'EN';
    if (NONSPACING.test(character)) return 'NSM';
    if (RIGHT_TO_LEFT.test(character)) return 'R';
    if (/^\p{L}$/u.test(character) || /^\p{Nd}$/u.test(character) || /^\p{Mc}$/u.test(character)) return 'L';
    return 'ON';
  };
  const classes = characters.map(classOf);
  if (!classes.some((kind) => kind === 'R' || kind === 'AN')) return true; // not a bidi name
  const first = classes[0];
  if (first !== 'R' && first !== 'L') return false; // rule 1
  const ending = [...classes];
  while (ending.at(-1) === 'NSM') ending.pop();
  const last = ending.at(-1);
  if (first === 'R') {
    // rules 2-4: no L; ends in R, AL, EN or AN; not both EN and AN
    if (classes.includes('L')) return false;
    if (last !== 'R' && last !== 'EN' && last !== 'AN') return false;
    return !(classes.includes('EN') && classes.includes('AN'));
  }
  // rules 5-6: an LTR name has no R, AL or AN and ends in L or EN
  return !classes.some((kind) => kind === 'R' || kind === 'AN') && (last === 'L' || last === 'EN');
}

/** The first character outside the IdentifierClass or out of its context, if any. */
function classRefusal(characters: readonly string[], withContext: boolean): UsernameRefusal | undefined {
  for (const [index, character] of characters.entries()) {
    const cp = character.codePointAt(0)!;
    const property = derivedProperty(character, cp);
    if (property === 'DISALLOWED') return { reason: 'disallowed-character', character, codePoint: hex(cp) };
    if (withContext && property !== 'PVALID' && !contextAllows(characters, index, property))
      return { reason: 'context', character, codePoint: hex(cp) };
  }
  return undefined;
}

/**
 * One userpart through the profile (RFC 8265 3.3.2): preparation (width mapping, then only
 * IdentifierClass code points: a compatibility form such as `𝐥` or `ﬁ` is refused here, before
 * case folding could turn it into a letter), then enforcement (case folding, NFC, the contextual
 * rules and the Bidi Rule on the result).
 */
function enforcedUserpart(part: string): { ok: true; value: string } | ({ ok: false } & UsernameRefusal) {
  const widthMappedCharacters = [...part].map((character) =>
    widthMapped(character, character.codePointAt(0)!),
  );
  const prepared = [...widthMappedCharacters.join('')];
  const unprepared = classRefusal(prepared, false);
  if (unprepared !== undefined) return { ok: false, ...unprepared };
  const folded = prepared.map((character) => caseFolded(character, character.codePointAt(0)!)).join('');
  const characters = [...folded.normalize('NFC')];
  const refused = classRefusal(characters, true);
  if (refused !== undefined) return { ok: false, ...refused };
  if (!bidiRuleHolds(characters)) return { ok: false, reason: 'bidi' };
  return { ok: true, value: characters.join('') };
}

/** The canonical form of a name as typed or as a source has it, or why it is no user name. */
export function checkUsername(typed: string): UsernameCheck {
  const trimmed = typed.replace(/^[\s\u3000]+|[\s\u3000]+$/gu, '');
  if (trimmed === '') return { ok: false, reason: 'empty' };
  const enforced = enforcedUserpart(trimmed);
  if (!enforced.ok) return enforced;
  const username = enforced.value;
  if (username.length > USERNAME_MAX_LENGTH)
    return { ok: false, reason: 'too-long', max: USERNAME_MAX_LENGTH };
  return { ok: true, username: username as Username };
}

/** The canonical form of a name, or undefined when the profile does not allow it. */
export function canonicalUsername(typed: string): Username | undefined {
  const checked = checkUsername(typed);
  return checked.ok ? checked.username : undefined;
}

/** Why a name is refused, in words an operator or an integrator reads. */
export function usernameRefusalText(refusal: UsernameRefusal): string {
  switch (refusal.reason) {
    case 'empty':
      return 'the user name is empty';
    case 'too-long':
      return `the user name is longer than ${refusal.max} characters`;
    case 'disallowed-character':
      if (/^\p{Zs}$/u.test(refusal.character))
        return `the user name may not contain a space (${refusal.codePoint}): a user name is one word of letters, digits and ASCII punctuation (RFC 8265)`;
      return `the user name may not contain "${refusal.character}" (${refusal.codePoint}): user names are letters, digits and ASCII punctuation (RFC 8265), without look-alike or compatibility forms`;
    case 'context':
      return `the user name has "${refusal.character}" (${refusal.codePoint}) where RFC 5892 does not allow it`;
    case 'bidi':
      return 'the user name mixes right-to-left and left-to-right text in a way RFC 5893 does not allow';
  }
}

/** The canonical form of a name that must be one (fixtures, benchmarks): throws when it is not. */
export function usernameOrThrow(typed: string): Username {
  const checked = checkUsername(typed);
  if (!checked.ok) throw new Error(`"${typed}": ${usernameRefusalText(checked)}`);
  return checked.username;
}
