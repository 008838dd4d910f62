import { describe, expect, it } from 'vitest';
import { changedSinceTerm, fullPassReason, laterPoint, type SyncMark } from './change-tracking.js';
import { FilterParser } from 'ldapts';
import { GroupMemberships } from './group-memberships.js';
import { allGroupsFilter, memberAttributesOf } from './ldap-filters.js';

const HOUR = 3_600_000;
const mark = (over: Partial<SyncMark> = {}): SyncMark => ({
  kind: 'usn',
  mark: '41000',
  invocationId: 'aa11',
  groupsDigest: 'g',
  settingsDigest: 's',
  fullAt: 0,
  ...over,
});
const decide = (stored: SyncMark | undefined, over: Partial<Parameters<typeof fullPassReason>[1]> = {}) =>
  fullPassReason(stored, {
    now: HOUR,
    fullIntervalMs: 24 * HOUR,
    settingsDigest: 's',
    server: { invocationId: 'aa11', highestUsn: '41500' },
    forced: false,
    ...over,
  });

describe('where a sync by change begins', () => {
  it('reads by change on the same domain controller, and everyone when another (or a restored one) answers', () => {
    expect(decide(mark())).toBeUndefined();
    expect(changedSinceTerm(mark()).toString()).toBe('(uSNChanged>=41001)');
    expect(decide(mark(), { server: { invocationId: 'bb22', highestUsn: '900' } })).toMatch(
      /another domain controller/,
    );
  });

  it('reads everyone on the first sync, after DEA_LDAP_FULL_SYNC_HOURS, after a change of settings, and when asked', () => {
    expect(decide(undefined)).toBe('first sync');
    expect(decide(mark(), { now: 24 * HOUR })).toBe('DEA_LDAP_FULL_SYNC_HOURS passed');
    expect(decide(mark(), { settingsDigest: 'other' })).toBe('the directory settings changed');
    expect(decide(mark(), { forced: true })).toBe('asked for');
  });

  it("takes OpenLDAP's entryCSN to the microsecond, and modifyTimestamp where there is none", () => {
    const csn = '20261126141315.120584Z#000000#000#000000';
    expect(changedSinceTerm(mark({ kind: 'csn', mark: csn })).toString()).toBe(`(entryCSN>=${csn})`);
    expect(changedSinceTerm(mark({ kind: 'timestamp', mark: '20261126141315Z' })).toString()).toBe(
      '(modifyTimestamp>=20261126141315Z)',
    );
    expect(
      laterPoint(
        { csn: csn, stamp: '20261126141315Z' },
        { csn: '20261126141315.120585Z#000000#000#000000', stamp: '20261126141314Z' },
      ),
    ).toEqual({ csn: '20261126141315.120585Z#000000#000#000000', stamp: '20261126141315Z' });
  });
});

describe('group membership read once', () => {
  it('reads every group with members whatever the group filter, and nests in memory', () => {
    const filter = (text: string) => FilterParser.parseString(text);
    expect(memberAttributesOf(filter('(|(member={dn})(uniqueMember={dn}))'))).toEqual([
      'member',
      'uniqueMember',
    ]);
    expect(allGroupsFilter(filter('(|(member={dn})(uniqueMember={dn}))')).toString()).toBe(
      '(|(member=*)(uniqueMember=*))',
    );
    expect(allGroupsFilter(filter('(member:1.2.840.113556.1.4.1941:={dn})')).toString()).toBe('(member=*)');
    expect(allGroupsFilter(filter('(&(objectClass=groupOfNames)(member={dn}))')).toString()).toBe(
      '(&(objectClass=groupOfNames)(member=*))',
    );
    const groups = new Map([
      ['cn=top', { members: ['cn=middle', 'cn=top'], changed: '' }],
      ['cn=middle', { members: ['uid=ann', 'cn=leaf'], changed: '' }],
      ['cn=leaf', { members: ['uid=bo'], changed: '' }],
    ]);
    const nested = new GroupMemberships(
      groups,
      new Map([
        ['cn=top', 'Top'],
        ['cn=leaf', 'Leaf'],
      ]),
      true,
    );
    expect(nested.of('UID=Bo')).toEqual(['Leaf', 'Top']);
    expect(nested.of('uid=ann')).toEqual(['Top']);
    const flat = new GroupMemberships(groups, new Map([['cn=top', 'Top']]), false);
    expect(flat.of('uid=ann')).toEqual([]);
  });
});
