import { randomInt } from 'node:crypto';

/** A code of `length` characters drawn uniformly (crypto.randomInt rejects bias) from `alphabet`. */
export function generateCode(length: number, alphabet: string): string {
  const characters = [...alphabet];
  let code = '';
  for (let index = 0; index < length; index += 1) {
    code += characters[randomInt(characters.length)];
  }
  return code;
}

/**
 * What a person may type for a code: spaces, and dashes unless the alphabet has them, are
 * ignored; when the alphabet's letters are all of one case the input is turned to it, so
 * 'abcd-2345' matches 'ABCD2345'. An alphabet with both cases keeps the case as typed.
 */
export function normalizeCode(input: string, alphabet: string): string {
  const stripped = input.replace(alphabet.includes('-') ? /\s/g : /[\s-]/g, '');
  if (alphabet === alphabet.toUpperCase()) return stripped.toUpperCase();
  if (alphabet === alphabet.toLowerCase()) return stripped.toLowerCase();
  return stripped;
}

/** Bits of entropy of a code: what an attacker has to guess. */
export function codeEntropyBits(length: number, alphabet: string): number {
  return length * Math.log2([...alphabet].length);
}
