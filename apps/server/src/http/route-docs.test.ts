import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { documented } from './route-docs.js';

const Result = Type.Object({ count: Type.Integer() });

describe('a route’s documented answers', () => {
  it('declare for each summary, caller, result, form and idempotency what it answers', () => {
    const doc = { summary: 'Count', security: 'session', result: Result } as const;
    const base = documented(doc);
    const others = [
      documented({ ...doc, summary: 'Another count' }),
      documented({ ...doc, security: 'serviceKey' }),
      documented({ ...doc, result: Type.Object({ count: Type.Integer() }) }),
      documented({ ...doc, bare: true }),
      documented({ ...doc, idempotent: true }),
    ];
    expect(others[0]?.summary).toBe('Another count');
    expect(Object.keys(base.response)).toEqual(['200', '400', '401', '403', '500', '503']);
    expect(Object.keys(others[1]?.response ?? {})).toEqual(['200', '400', '401', '500', '503']);
    expect(Object.keys(others[4]?.response ?? {})).toContain('409');
    expect(others[3]?.response[200]).toMatchObject({ description: 'The answer' });
  });
});
