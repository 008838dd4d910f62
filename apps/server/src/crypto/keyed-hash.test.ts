import { describe, expect, it } from 'vitest';
import { constantTimeEqual, digestBytes, keyedHash, sameDigest, sha256 } from './keyed-hash.js';

const key = Buffer.alloc(32, 1);
const otherKey = Buffer.alloc(32, 2);

describe('keyed hash (HMAC-SHA-256)', () => {
  it('is deterministic for one key and differs for another key', () => {
    expect(keyedHash(key, 'user', 'ABCD2345')).toBe(keyedHash(key, 'user', 'ABCD2345'));
    expect(keyedHash(key, 'user', 'ABCD2345')).not.toBe(keyedHash(otherKey, 'user', 'ABCD2345'));
    expect(keyedHash(key, 'user', 'ABCD2345')).toMatch(/^[\w-]{43}$/);
  });

  it('keeps its parts apart: (ab, c) and (a, bc) differ', () => {
    expect(keyedHash(key, 'ab', 'c')).not.toBe(keyedHash(key, 'a', 'bc'));
    expect(keyedHash(key, 'user-1', 'CODE')).not.toBe(keyedHash(key, 'user-2', 'CODE'));
  });

  it('is not the plain SHA-256 of the value', () => {
    expect(keyedHash(key, 'ABCD2345')).not.toBe(sha256('ABCD2345'));
    expect(sha256('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });
});

describe('constantTimeEqual', () => {
  it('answers equality of strings of any length', () => {
    expect(constantTimeEqual('token', 'token')).toBe(true);
    expect(constantTimeEqual('token', 'tokeN')).toBe(false);
    expect(constantTimeEqual('token', 'token2')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('', 'x')).toBe(false);
    expect(constantTimeEqual('é', 'e')).toBe(false);
  });
});

describe('sameDigest', () => {
  it('compares raw digests decoded once: equal, different, and of another length', () => {
    const digest = digestBytes(keyedHash(key, 'user', 'ABCD2345'));
    expect(digest).toHaveLength(32);
    expect(sameDigest(digest, digestBytes(keyedHash(key, 'user', 'ABCD2345')))).toBe(true);
    expect(sameDigest(digest, digestBytes(keyedHash(otherKey, 'user', 'ABCD2345')))).toBe(false);
    expect(sameDigest(digest, digest.subarray(0, 31))).toBe(false);
  });
});
