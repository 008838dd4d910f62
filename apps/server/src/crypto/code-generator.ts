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
 * What a person may type for a code: spaces and dashes are ignored, and when the alphabet has
 * no lower-case letters the input is upper-cased, so 'abcd-2345' matches 'ABCD2345'.
 */
export function normalizeCode(input: string, alphabet: string): string {
  const stripped = input.replace(/[\s-]/g, '');
  return alphabet === alphabet.toUpperCase() ? stripped.toUpperCase() : stripped;
}

/** Bits of entropy of a code: what an attacker has to guess. */
export function codeEntropyBits(length: number, alphabet: string): number {
  return length * Math.log2([...alphabet].length);
}
