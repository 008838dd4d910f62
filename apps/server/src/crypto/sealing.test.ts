import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seal, unseal } from './sealing.js';

const key = randomBytes(32);

describe('sealing (AES-256-GCM)', () => {
  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = seal(key, 'Your code is ABCD2345 ✓', 'outbox:1');
    expect(unseal(key, sealed, 'outbox:1')).toBe('Your code is ABCD2345 ✓');
    expect(sealed).not.toContain('ABCD2345');
    expect(seal(key, 'Your code is ABCD2345 ✓', 'outbox:1')).not.toBe(sealed);
    expect(sealed.split('.')).toHaveLength(3);
  });

  it('detects tampering, another context and another key', () => {
    const sealed = seal(key, 'secret text', 'outbox:1');
    const [iv, tag, body] = sealed.split('.') as [string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => unseal(key, [iv, tag, flipped.toString('base64url')].join('.'), 'outbox:1')).toThrow();
    expect(() => unseal(key, sealed, 'outbox:2')).toThrow();
    expect(() => unseal(randomBytes(32), sealed, 'outbox:1')).toThrow();
    expect(() => unseal(key, 'not sealed', 'outbox:1')).toThrow();
  });
});
