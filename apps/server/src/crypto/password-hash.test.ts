import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password-hash.js';

const COST = 10;

describe('password hashing (scrypt)', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery staple', COST);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('encodes its parameters, so the cost can change without breaking older hashes', async () => {
    const stored = await hashPassword('pw', COST);
    expect(stored).toMatch(/^scrypt\$ln=10,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);
    const stronger = await hashPassword('pw', 11);
    expect(stronger).toMatch(/^scrypt\$ln=11,/);
    expect(await verifyPassword('pw', stored)).toBe(true);
    expect(await verifyPassword('pw', stronger)).toBe(true);
  });

  it('salts every hash differently and never holds the password', async () => {
    const [first, second] = await Promise.all([
      hashPassword('same password', COST),
      hashPassword('same password', COST),
    ]);
    expect(first).not.toBe(second);
    expect(first.split('$')[2]).not.toBe(second.split('$')[2]);
    expect(first).not.toContain('same password');
  });

  it('normalizes Unicode, so the same password typed differently matches', async () => {
    const stored = await hashPassword('caf\u00e9', COST);
    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  it('refuses a stored value it cannot read, and a tampered hash', async () => {
    expect(await verifyPassword('pw', '')).toBe(false);
    expect(await verifyPassword('pw', 'plain:pw')).toBe(false);
    const stored = await hashPassword('pw', COST);
    // Flip a whole byte of the hash, not its last base64 character: the last character of 32
    // bytes carries 4 bits of padding, and flipping one of those leaves the same bytes.
    const [prefix, params, salt, hash = ''] = stored.split('$');
    const bytes = Buffer.from(hash, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    const tampered = [prefix, params, salt, bytes.toString('base64url')].join('$');
    expect(tampered).not.toBe(stored);
    expect(await verifyPassword('pw', tampered)).toBe(false);
  });
});
