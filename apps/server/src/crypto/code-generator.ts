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
 * The ways an alphabet has an input normalized (normalizeCode): 0 to upper case, 1 to lower case,
 * 2 as typed; plus 3 when the alphabet holds a dash, which is then kept. Verification hashes an
 * input in every form before it knows the user's alphabet (the store picks the form).
 */
export const CODE_FORMS = 6;

/** The form of normalizeCode for this alphabet (CODE_FORMS). */
export function codeFormOf(alphabet: string): number {
  const dash = alphabet.includes('-') ? 3 : 0;
  if (alphabet === alphabet.toUpperCase()) return dash;
  if (alphabet === alphabet.toLowerCase()) return dash + 1;
  return dash + 2;
}

/** The input as an alphabet of this form has it typed (CODE_FORMS). */
export function normalizeCodeAs(input: string, form: number): string {
  const stripped = input.replace(form >= 3 ? /\s/g : /[\s-]/g, '');
  const letterCase = form % 3;
  if (letterCase === 0) return stripped.toUpperCase();
  if (letterCase === 1) return stripped.toLowerCase();
  return stripped;
}

/**
 * What a person may type for a code: spaces, and dashes unless the alphabet has them, are
 * ignored; when the alphabet's letters are all of one case the input is turned to it, so
 * 'abcd-2345' matches 'ABCD2345'. An alphabet with both cases keeps the case as typed.
 */
export function normalizeCode(input: string, alphabet: string): string {
  return normalizeCodeAs(input, codeFormOf(alphabet));
}

/** Bits of entropy of a code: what an attacker has to guess. */
export function codeEntropyBits(length: number, alphabet: string): number {
  return length * Math.log2([...alphabet].length);
}
