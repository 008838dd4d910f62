import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_KEY_FILE, acceptedKeys, deriveKeys, loadSecret } from './secret-keys.js';

describe('server secret and keys', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('generates a secret once into the data folder, readable only by its owner, and reads it back', () => {
    dir = mkdtempSync(join(tmpdir(), 'dea-secret-'));
    const first = loadSecret('', dir);
    expect(first.generated).toBe(true);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = loadSecret('', dir);
    expect(second.generated).toBe(false);
    expect(second.secret.equals(first.secret)).toBe(true);
    expect(readFileSync(join(dir, SECRET_KEY_FILE), 'utf8').trim()).toBe(first.secret.toString('base64'));
  });

  it('takes a configured secret in base64 or hex, and refuses a short one', () => {
    const bytes = Buffer.alloc(32, 9);
    expect(loadSecret(bytes.toString('base64'), '/nonexistent').secret.equals(bytes)).toBe(true);
    expect(loadSecret(bytes.toString('hex'), '/nonexistent').secret.equals(bytes)).toBe(true);
    expect(() => loadSecret('short', '/nonexistent')).toThrow(/at least 32 bytes/);
  });

  it('derives different keys for every purpose, the same ones on every instance', () => {
    const keys = deriveKeys(Buffer.alloc(32, 3));
    const { previous, fingerprint, ...purposes } = keys;
    expect(previous).toBeUndefined();
    const values = Object.values(purposes).map((key) => key.toString('hex'));
    expect(new Set(values).size).toBe(Object.keys(purposes).length);
    expect(values.length).toBeGreaterThanOrEqual(5);
    expect(values).not.toContain(fingerprint);
    expect(deriveKeys(Buffer.alloc(32, 3))).toEqual(keys);
    expect(deriveKeys(Buffer.alloc(32, 4)).codeHash.equals(keys.codeHash)).toBe(false);
  });

  it("derives the previous secret's keys beside the current ones while a secret is replaced", () => {
    const keys = deriveKeys(Buffer.alloc(32, 4), Buffer.alloc(32, 3));
    const alone = deriveKeys(Buffer.alloc(32, 3));
    expect(keys.previous?.codeHash.equals(alone.codeHash)).toBe(true);
    expect(keys.previous?.fingerprint).toBe(alone.fingerprint);
    expect(keys.codeHash.equals(alone.codeHash)).toBe(false);
    expect(acceptedKeys(keys, 'seal')).toEqual([keys.seal, alone.seal]);
    expect(acceptedKeys(alone, 'seal')).toEqual([alone.seal]);
  });
});
