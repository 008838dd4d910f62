import type { OrFilter } from 'ldapts';
import { EqualityFilter, FilterParser } from 'ldapts';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../testing/test-app.js';
import {
  allOf,
  equals,
  followsNestingItself,
  groupsOfMember,
  memberAttributesOf,
  not,
  parseFilter,
} from './ldap-filters.js';

const DIRECTORY = {
  DEA_LDAP_URL: 'ldap://directory.example.com',
  DEA_LDAP_BASE_DN: 'dc=example,dc=com',
};

describe("the directory's filters as ldapts filter objects", () => {
  it("reads an operator's filter once, and names one that is none", () => {
    const read = parseFilter(' (&(objectClass=inetOrgPerson)(!(employeeType=left))) ');
    expect('filter' in read && read.filter.toString()).toBe(
      '(&(objectClass=inetOrgPerson)(!(employeeType=left)))',
    );
    expect(parseFilter('objectClass=person')).toEqual({ problem: 'must be an LDAP filter in parentheses' });
    expect(parseFilter('(&(uid=a)')).toEqual({ problem: expect.stringMatching(/^is not an LDAP filter/) });
  });

  it('keeps a value as data, whatever filter characters it holds', () => {
    const value = 'a*)(uid=*\\';
    const term = equals('uid', value);
    expect(term).toBeInstanceOf(EqualityFilter);
    expect((term as EqualityFilter).value).toBe(value);
    expect(term.toString()).toBe('(uid=a\\2a\\29\\28uid=\\2a\\5c)');
    expect(
      allOf(FilterParser.parseString('(objectClass=user)'), not(equals('adminCount', '1'))).toString(),
    ).toBe('(&(objectClass=user)(!(adminCount=1)))');
  });

  it("fills DEA_LDAP_GROUP_FILTER's {dn} with a member's DN as a whole value, the rest untouched", () => {
    const groupFilter = FilterParser.parseString(
      '(&(objectClass=groupOfNames)(|(member={dn})(uniqueMember={dn})))',
    );
    const dn = 'cn=O*Brien \\28Ops\\29,ou=people,dc=example,dc=com';
    const filled = groupsOfMember(groupFilter, dn);
    const either = (filled as unknown as { filters: unknown[] }).filters[1] as OrFilter;
    expect(either.filters.map((term) => (term as EqualityFilter).value)).toEqual([dn, dn]);
    // The operator's filter is read once and shared: filling it makes a copy.
    expect(groupFilter.toString()).toBe('(&(objectClass=groupOfNames)(|(member={dn})(uniqueMember={dn})))');
    const inChain = FilterParser.parseString('(member:1.2.840.113556.1.4.1941:={dn})');
    expect(groupsOfMember(inChain, 'cn=a,dc=x').toString()).toBe(
      '(member:1.2.840.113556.1.4.1941:=cn=a,dc=x)',
    );
    expect(followsNestingItself(inChain)).toBe(true);
    expect(followsNestingItself(groupFilter)).toBe(false);
    expect(memberAttributesOf(FilterParser.parseString('(objectClass=group)'))).toEqual([
      'member',
      'uniqueMember',
    ]);
  });

  it('refuses at start a user or group filter that is none, or a group filter without {dn} as a value', () => {
    expect(() => testConfig({ ...DIRECTORY, DEA_LDAP_USER_FILTER: '(&(uid=a)' })).toThrow(
      /DEA_LDAP_USER_FILTER: is not an LDAP filter/,
    );
    expect(() => testConfig({ ...DIRECTORY, DEA_LDAP_GROUP_FILTER: '(member=*{dn}*)' })).toThrow(
      /DEA_LDAP_GROUP_FILTER: must contain \{dn\}, the member whose groups are searched, as a whole value/,
    );
    const ad = testConfig({ ...DIRECTORY, DEA_LDAP_ACTIVE_DIRECTORY: 'true' }).directory;
    expect(ad?.userFilter.toString()).toBe(
      '(&(&(objectClass=user)(!(objectClass=computer))(!(isCriticalSystemObject=TRUE))(!(servicePrincipalName=*)))(!(adminCount=1)))',
    );
  });
});
