import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_ALPHABET } from '../domain/codes/code-settings.js';
import { codeEntropyBits, generateCode, normalizeCode } from './code-generator.js';

describe('generateCode', () => {
  it('draws exactly `length` characters from the alphabet', () => {
    for (const [length, alphabet] of [
      [10, DEFAULT_CODE_ALPHABET],
      [6, '0123456789'],
      [64, 'abcdefghijklmnopqrstuvwxyz'],
    ] as const) {
      for (let index = 0; index < 50; index += 1) {
        const code = generateCode(length, alphabet);
        expect(code).toHaveLength(length);
        for (const character of code) expect(alphabet).toContain(character);
      }
    }
  });

  it('uses every character of the alphabet about equally often', () => {
    const alphabet = DEFAULT_CODE_ALPHABET;
    const counts = new Map<string, number>([...alphabet].map((character) => [character, 0]));
    const draws = 3200;
    for (let index = 0; index < draws / 10; index += 1) {
      for (const character of generateCode(10, alphabet))
        counts.set(character, (counts.get(character) ?? 0) + 1);
    }
    const expected = draws / alphabet.length;
    // 100 per character on average; the standard deviation is about 10, so 55..145 fails by chance
    // about once in a million runs per character.
    for (const [character, count] of counts) {
      expect(count, character).toBeGreaterThan(expected * 0.55);
      expect(count, character).toBeLessThan(expected * 1.45);
    }
    // Chi-squared with 31 degrees of freedom: above 80 happens with probability < 1e-5.
    const chiSquared = [...counts.values()].reduce(
      (sum, count) => sum + (count - expected) ** 2 / expected,
      0,
    );
    expect(chiSquared).toBeLessThan(80);
  });

  it('does not repeat codes', () => {
    const codes = new Set(Array.from({ length: 2000 }, () => generateCode(10, DEFAULT_CODE_ALPHABET)));
    expect(codes.size).toBe(2000);
  });

  it('gives the default code 50 bits of entropy', () => {
    expect(codeEntropyBits(10, DEFAULT_CODE_ALPHABET)).toBe(50);
  });
});

describe('normalizeCode', () => {
  it('ignores spaces and dashes and upper-cases input for an upper-case alphabet', () => {
    expect(normalizeCode(' abcd-2345 ', DEFAULT_CODE_ALPHABET)).toBe('ABCD2345');
    expect(normalizeCode('AB CD\t23-45', DEFAULT_CODE_ALPHABET)).toBe('ABCD2345');
  });

  it('keeps the case for an alphabet with both cases', () => {
    expect(normalizeCode('aBc-D', 'abcdefghijABCDEFGHIJ')).toBe('aBcD');
  });

  it('lower-cases input for a lower-case alphabet, and keeps dashes an alphabet has', () => {
    expect(normalizeCode('AB-CD 23', 'abcdefghij23456789')).toBe('abcd23');
    expect(normalizeCode('AB-C D', 'ABCDEFGHIJ-')).toBe('AB-CD');
  });
});
