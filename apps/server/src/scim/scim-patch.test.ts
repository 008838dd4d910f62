import { describe, expect, it } from 'vitest';
import { ScimError } from './scim-error.js';
import { parseFilter } from './scim-filter.js';
import { applyPatch } from './scim-patch.js';
import { SCIM } from './scim-schemas.js';

const user = {
  schemas: [SCIM.user],
  userName: 'ann',
  name: { formatted: 'Ann Lee' },
  active: true,
  emails: [{ value: 'ann@work.example', type: 'work', primary: true }],
  phoneNumbers: [
    { value: '+4917055501', type: 'mobile' },
    { value: '+49305550', type: 'work' },
  ],
};
const patch = (...Operations: { op: string; path?: string; value?: unknown }[]) =>
  applyPatch(user, { schemas: [SCIM.patchOp], Operations });

function refusal(run: () => unknown): { status: number; scimType: string | undefined } {
  try {
    run();
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, scimType: error.scimType };
    throw error;
  }
  throw new Error('not refused');
}

describe('applyPatch', () => {
  it('replaces, adds and removes simple and complex attributes, names case-insensitive', () => {
    expect(patch({ op: 'Replace', path: 'ACTIVE', value: 'False' }).active).toBe(false);
    expect(patch({ op: 'replace', path: `${SCIM.user}:userName`, value: 'bo' }).userName).toBe('bo');
    expect(patch({ op: 'add', path: 'name.givenName', value: 'Ann' }).name).toEqual({
      formatted: 'Ann Lee',
      givenName: 'Ann',
    });
    expect(patch({ op: 'remove', path: 'name' }).name).toBeUndefined();
    expect(patch({ op: 'add', path: 'name', value: { familyName: 'Lee' } }).name).toEqual({
      formatted: 'Ann Lee',
      familyName: 'Lee',
    });
  });

  it('takes an object without a path, keys written as paths too (Okta, Entra)', () => {
    const result = patch({
      op: 'replace',
      value: { active: false, 'name.givenName': 'A', displayName: 'A L' },
    });
    expect(result).toMatchObject({
      active: false,
      name: { formatted: 'Ann Lee', givenName: 'A' },
      displayName: 'A L',
    });
  });

  it('selects values by a filter: replaces, adds one that is missing, removes', () => {
    expect(
      patch({ op: 'replace', path: 'emails[type eq "work"].value', value: 'new@work.example' }).emails,
    ).toEqual([{ value: 'new@work.example', type: 'work', primary: true }]);
    expect(
      patch({ op: 'add', path: 'emails[type eq "home"].value', value: 'ann@home.example' }).emails,
    ).toEqual([
      { value: 'ann@work.example', type: 'work', primary: true },
      { type: 'home', value: 'ann@home.example' },
    ]);
    expect(patch({ op: 'remove', path: 'phoneNumbers[type eq "WORK"]' }).phoneNumbers).toEqual([
      { value: '+4917055501', type: 'mobile' },
    ]);
    expect(patch({ op: 'remove', path: 'phoneNumbers[type eq "mobile"].value' }).phoneNumbers).toEqual([
      { value: '+49305550', type: 'work' },
    ]);
    expect(
      patch({ op: 'add', path: 'phoneNumbers', value: [{ value: '+4940555', type: 'home' }] }).phoneNumbers,
    ).toHaveLength(3);
    expect(
      patch({ op: 'remove', path: 'phoneNumbers', value: [{ value: '+49305550' }] }).phoneNumbers,
    ).toEqual([{ value: '+4917055501', type: 'mobile' }]);
  });

  it('leaves the resource it was given alone', () => {
    patch({ op: 'replace', path: 'active', value: false });
    expect(user.active).toBe(true);
  });

  it('refuses what it cannot apply, saying which kind of mistake', () => {
    expect(refusal(() => patch({ op: 'copy', path: 'active', value: true }))).toEqual({
      status: 400,
      scimType: 'invalidSyntax',
    });
    expect(refusal(() => patch({ op: 'remove' }))).toEqual({ status: 400, scimType: 'noTarget' });
    expect(refusal(() => patch({ op: 'replace', value: 'x' }))).toEqual({
      status: 400,
      scimType: 'invalidValue',
    });
    expect(refusal(() => patch({ op: 'replace', path: 'emails[type eq "work"', value: 'x' }))).toEqual({
      status: 400,
      scimType: 'invalidPath',
    });
    expect(refusal(() => patch({ op: 'replace', path: 'active' }))).toEqual({
      status: 400,
      scimType: 'invalidValue',
    });
    expect(
      refusal(() =>
        applyPatch(user, { schemas: [SCIM.user], Operations: [{ op: 'add', path: 'active', value: true }] }),
      ),
    ).toEqual({
      status: 400,
      scimType: 'invalidSyntax',
    });
  });
});

describe('parseFilter', () => {
  it('reads comparisons, pr, and binding closer than or, not and grouping; names in lower case', () => {
    expect(parseFilter('userName eq "a \\"b\\""')).toEqual({
      kind: 'compare',
      attribute: 'username',
      op: 'eq',
      value: 'a "b"',
    });
    expect(parseFilter('a eq 1 or b pr AND not (c ne true)')).toEqual({
      kind: 'or',
      left: { kind: 'compare', attribute: 'a', op: 'eq', value: 1 },
      right: {
        kind: 'and',
        left: { kind: 'pr', attribute: 'b' },
        right: { kind: 'not', filter: { kind: 'compare', attribute: 'c', op: 'ne', value: true } },
      },
    });
    expect(parseFilter(`(${SCIM.user}:userName sw "a" or id ew "b") and x eq null`)).toEqual({
      kind: 'and',
      left: {
        kind: 'or',
        left: { kind: 'compare', attribute: 'username', op: 'sw', value: 'a' },
        right: { kind: 'compare', attribute: 'id', op: 'ew', value: 'b' },
      },
      right: { kind: 'compare', attribute: 'x', op: 'eq', value: null },
    });
  });

  it('refuses what is no filter as invalidFilter', () => {
    for (const filter of [
      'userName xx "a"',
      'userName eq',
      '(userName eq "a"',
      'userName eq "a")',
      'not userName eq "a"',
      'emails[type eq "work"]',
      'userName eq "\\q"',
      '',
    ]) {
      expect(
        refusal(() => parseFilter(filter)),
        filter,
      ).toEqual({ status: 400, scimType: 'invalidFilter' });
    }
  });
});
