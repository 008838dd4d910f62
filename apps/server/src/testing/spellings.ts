/** Other spellings of one user name, as attackers and phones type them (RFC 8265 tests). */

/** Fullwidth forms of ASCII (U+FF01-FF5E): what a phone's IME or a copy from a CJK document types. */
export const fullwidth = (text: string): string =>
  [...text]
    .map((c) => (c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c))
    .join('');

/** Sixty spellings of one name: each character lower, upper, fullwidth lower or fullwidth upper. */
export function spellingsOf(name: string, count: number): string[] {
  const letters = [...name];
  const spellings = new Set<string>();
  for (let seed = 1; spellings.size < count; seed += 1) {
    let rest = seed;
    const spelled = letters.map((character) => {
      const form = rest % 4;
      rest = Math.floor(rest / 4) + seed;
      const cased = form % 2 === 1 ? character.toUpperCase() : character;
      return form >= 2 ? fullwidth(cased) : cased;
    });
    spellings.add(spelled.join(''));
  }
  return [...spellings];
}
