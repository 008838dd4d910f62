import { describe, expect, it } from 'vitest';
import { newChannelReference, newId } from './ids.js';

describe('ids', () => {
  it('makes UUIDv7 ids that sort in creation order, even within one millisecond', () => {
    const at = Date.UTC(2026, 10, 21, 12, 0, 0);
    const ids = Array.from({ length: 500 }, () => newId(at));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId(at + 1000) > (ids.at(-1) ?? '')).toBe(true);
  });

  it('makes channel references of 128 random bits that carry no time', () => {
    const references = Array.from({ length: 1000 }, () => newChannelReference());
    for (const reference of references) expect(reference).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(references).size).toBe(references.length);
    expect([...references].sort()).not.toEqual(references);
  });

  it('never hands out the random bytes of an id again in a channel reference', () => {
    const ids: string[] = [];
    const references: string[] = [];
    for (let index = 0; index < 600; index += 1) {
      ids.push(newId());
      references.push(newChannelReference());
    }
    // An id's last 8 bytes are random but for its variant bits; a reference's are all random.
    const idTails = new Set(ids.map((id) => id.replace(/-/g, '').slice(18)));
    const referenceTails = references.map((reference) =>
      Buffer.from(reference, 'base64url').toString('hex').slice(18),
    );
    expect(referenceTails.filter((tail) => idTails.has(tail))).toEqual([]);
  });
});
