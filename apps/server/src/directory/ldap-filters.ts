import {
  AndFilter,
  EqualityFilter,
  ExtensibleFilter,
  type Filter,
  FilterParser,
  GreaterThanEqualsFilter,
  NotFilter,
  OrFilter,
  PresenceFilter,
} from 'ldapts';

/**
 * The directory's search filters as ldapts's filter objects: an operator's filter (DEA_LDAP_USER_FILTER,
 * DEA_LDAP_GROUP_FILTER) is parsed once when the settings are read, and every filter the product
 * adds (a login name, a change mark, a member's DN) is an object put beside it. ldapts encodes the
 * objects as BER with each value as data, so no value read from a person or a directory is ever
 * read as filter syntax; their text (`toString()`, RFC 4515 with ldapts's escaping) is for messages
 * and the settings' digest.
 */

/** Where DEA_LDAP_GROUP_FILTER names the member whose groups are searched. */
export const MEMBER_PLACEHOLDER = '{dn}';

/** Active Directory's in-chain rule (LDAP_MATCHING_RULE_IN_CHAIN): the server follows nesting. */
const IN_CHAIN_RULE = '1.2.840.113556.1.4.1941';

/** An operator's filter read, or why it cannot be. */
export function parseFilter(text: string): { filter: Filter } | { problem: string } {
  const trimmed = text.trim();
  if (!/^\(.*\)$/s.test(trimmed)) return { problem: 'must be an LDAP filter in parentheses' };
  // A parenthesis in a value is written \28 or \29 (RFC 4515): every one left is the filter's own,
  // and ldapts reads `(&(uid=a)` as if it were closed.
  if (trimmed.split('(').length !== trimmed.split(')').length)
    return { problem: 'is not an LDAP filter (RFC 4515): its parentheses do not pair' };
  try {
    return { filter: FilterParser.parseString(trimmed) };
  } catch (error) {
    return { problem: `is not an LDAP filter (RFC 4515): ${(error as Error).message}` };
  }
}

/** Entries that match every one of the filters. */
export function allOf(...filters: Filter[]): Filter {
  return new AndFilter({ filters });
}

/** Entries that match any of the filters. */
export function anyOf(...filters: Filter[]): Filter {
  return filters.length === 1 ? (filters[0] as Filter) : new OrFilter({ filters });
}

/** Entries that do not match. */
export function not(filter: Filter): Filter {
  return new NotFilter({ filter });
}

/** An attribute equal to a value: the value is data, whatever characters it holds. */
export function equals(attribute: string, value: string): Filter {
  return new EqualityFilter({ attribute, value });
}

/** An attribute at or after a value in its ordering (a change number, a time). */
export function atLeast(attribute: string, value: string): Filter {
  return new GreaterThanEqualsFilter({ attribute, value });
}

/** Entries that have the attribute: `(objectClass=*)`, every entry. */
export function present(attribute: string): Filter {
  return new PresenceFilter({ attribute });
}

/** The terms of a filter (what is not an and, an or or a not), in order. */
function termsOf(filter: Filter): Filter[] {
  if (filter instanceof AndFilter || filter instanceof OrFilter) return filter.filters.flatMap(termsOf);
  if (filter instanceof NotFilter) return termsOf(filter.filter);
  return [filter];
}

const isMemberTerm = (term: Filter): term is EqualityFilter | ExtensibleFilter =>
  (term instanceof EqualityFilter || term instanceof ExtensibleFilter) && term.value === MEMBER_PLACEHOLDER;

/** The terms of a filter that compare an attribute to the member placeholder. */
function memberTerms(filter: Filter): (EqualityFilter | ExtensibleFilter)[] {
  return termsOf(filter).filter(isMemberTerm);
}

/** Whether DEA_LDAP_GROUP_FILTER names the member it searches the groups of. */
export function namesMember(groupFilter: Filter): boolean {
  return memberTerms(groupFilter).length > 0;
}

/** A copy of the filter with each term of `rewrite` replaced by what it answers. */
function rewritten(filter: Filter, rewrite: (term: EqualityFilter | ExtensibleFilter) => Filter): Filter {
  if (filter instanceof AndFilter)
    return new AndFilter({ filters: filter.filters.map((f) => rewritten(f, rewrite)) });
  if (filter instanceof OrFilter)
    return new OrFilter({ filters: filter.filters.map((f) => rewritten(f, rewrite)) });
  if (filter instanceof NotFilter) return new NotFilter({ filter: rewritten(filter.filter, rewrite) });
  return isMemberTerm(filter) ? rewrite(filter) : filter;
}

/** DEA_LDAP_GROUP_FILTER for one member: each placeholder term compares to the member's DN. */
export function groupsOfMember(groupFilter: Filter, memberDn: string): Filter {
  return rewritten(groupFilter, (term) =>
    term instanceof EqualityFilter
      ? new EqualityFilter({ attribute: term.attribute, value: memberDn })
      : new ExtensibleFilter({
          rule: term.rule,
          matchType: term.matchType,
          dnAttributes: term.dnAttributes,
          value: memberDn,
        }),
  );
}

/**
 * The attributes a group lists its members in, read from DEA_LDAP_GROUP_FILTER: each `(attr={dn})`
 * term, or `(attr:rule:={dn})` (Active Directory's in-chain rule, which the sync does not need: it
 * nests in memory). `(|(member={dn})(uniqueMember={dn}))` gives member and uniqueMember.
 */
export function memberAttributesOf(groupFilter: Filter): string[] {
  const names = memberTerms(groupFilter)
    .map((term) => (term instanceof EqualityFilter ? term.attribute : term.matchType))
    .filter((name) => name !== '');
  return [...new Set(names.length > 0 ? names : ['member', 'uniqueMember'])];
}

/**
 * The filter of every group that has members, whatever member: DEA_LDAP_GROUP_FILTER with each
 * `(attr={dn})` term turned into `(attr=*)`. One search of it replaces one search per user and
 * nesting level (the default filter is unindexed on Debian's slapd).
 */
export function allGroupsFilter(groupFilter: Filter): Filter {
  return rewritten(groupFilter, (term) =>
    present(term instanceof EqualityFilter ? term.attribute : term.matchType),
  );
}

/** Whether DEA_LDAP_GROUP_FILTER asks Active Directory to follow nested groups itself (the in-chain rule). */
export function followsNestingItself(groupFilter: Filter): boolean {
  return termsOf(groupFilter).some((term) => term instanceof ExtensibleFilter && term.rule === IN_CHAIN_RULE);
}
