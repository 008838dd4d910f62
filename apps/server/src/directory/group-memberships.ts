import { createHash } from 'node:crypto';
import type { Client, Entry, Filter } from 'ldapts';
import { normalizeDn } from './directory-settings.js';
import { allGroupsFilter, followsNestingItself, memberAttributesOf } from './ldap-filters.js';

/** How deep groups in groups are followed, as at sign-in. */
export const MAX_GROUP_DEPTH = 10;

/**
 * Whether the sync follows groups in groups: DEA_LDAP_NESTED_GROUPS, or a group filter of Active
 * Directory's in-chain rule (1.2.840.113556.1.4.1941), which nests by itself at sign-in and so is
 * set with DEA_LDAP_NESTED_GROUPS=false: the sync reads the groups' direct members and nests them
 * in memory the same.
 */
export function syncNests(groupFilter: Filter, nestedGroups: boolean): boolean {
  return nestedGroups || followsNestingItself(groupFilter);
}

/** A group as one sync read it: its members (normalized DNs) and when it last changed. */
export interface GroupEntry {
  members: string[];
  /** When it last changed: entryCSN and modifyTimestamp, or uSNChanged, as the directory wrote them. */
  changed: string;
}

function valuesOf(entry: Entry, attribute: string): string[] {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) =>
    Buffer.isBuffer(item) ? item.toString('utf8') : item,
  );
}

/**
 * How many values of a member attribute the sync asks Active Directory for at once: its default
 * MaxValRange. AD answers at most that many of a large group's `member` anyway (as
 * `member;range=0-1499`); Samba's domain controller answers every value unless a range is asked
 * for, so asking for one reads both alike, and the ranged reads are what the tests run.
 */
export const MEMBER_RANGE = 1_500;

/**
 * The values of a member attribute, all of them: Active Directory answers at most 1,500 values of
 * a large group's `member` at once, as `member;range=0-1499`, and the rest on request by range.
 */
async function allMembers(
  client: Client,
  entry: Entry,
  attribute: string,
  count: () => void,
): Promise<string[]> {
  const ranged = new RegExp(`^${attribute};range=(\\d+)-(\\d+|\\*)$`, 'i');
  const rangeKey = Object.keys(entry).find((name) => ranged.test(name));
  if (rangeKey === undefined) return valuesOf(entry, attribute);
  const members = valuesOf(entry, rangeKey);
  let end = ranged.exec(rangeKey)?.[2];
  while (end !== undefined && end !== '*') {
    const next = `${attribute};range=${Number(end) + 1}-*`;
    count();
    const { searchEntries } = await client.search(entry.dn, { scope: 'base', attributes: [next] });
    const [more] = searchEntries;
    const key = more === undefined ? undefined : Object.keys(more).find((name) => ranged.test(name));
    if (more === undefined || key === undefined) break;
    members.push(...valuesOf(more, key));
    end = ranged.exec(key)?.[2];
  }
  return members;
}

/**
 * Every group of the directory with its members, in a few searches (paged), for one sync: then
 * each user's mapped groups are found in memory, nesting included.
 */
export async function readGroups(
  client: Client,
  options: {
    baseDn: string;
    groupFilter: Filter;
    pageSize: number;
    changeAttributes: readonly string[];
    /** Active Directory: member values asked for by range (MEMBER_RANGE at a time). */
    ranged: boolean;
    count: () => void;
  },
): Promise<Map<string, GroupEntry>> {
  const attributes = memberAttributesOf(options.groupFilter);
  const groups = new Map<string, GroupEntry>();
  options.count();
  const pages = client.searchPaginated(options.baseDn, {
    scope: 'sub',
    filter: allGroupsFilter(options.groupFilter),
    attributes: [
      ...(options.ranged ? attributes.map((name) => `${name};range=0-${MEMBER_RANGE - 1}`) : attributes),
      ...options.changeAttributes,
    ],
    paged: { pageSize: options.pageSize },
  });
  for await (const page of pages) {
    for (const entry of page.searchEntries) {
      const members: string[] = [];
      for (const attribute of attributes)
        members.push(...(await allMembers(client, entry, attribute, options.count)));
      groups.set(normalizeDn(entry.dn), {
        members: [...new Set(members.map(normalizeDn))],
        changed: options.changeAttributes.map((name) => valuesOf(entry, name)[0] ?? '').join(' '),
      });
    }
  }
  return groups;
}

/**
 * Which mapped product groups each DN is in, from the groups read once: from every mapped group
 * down through its member groups (at most MAX_GROUP_DEPTH levels; none with `nested` false).
 */
export class GroupMemberships {
  private readonly productGroups = new Map<string, Set<string>>();

  constructor(
    readonly groups: ReadonlyMap<string, GroupEntry>,
    mapped: ReadonlyMap<string, string>,
    nested: boolean,
  ) {
    for (const [groupDn, productGroup] of mapped) {
      const reached = new Set<string>();
      let level = this.groups.get(groupDn)?.members ?? [];
      for (let depth = 0; depth < MAX_GROUP_DEPTH && level.length > 0; depth += 1) {
        const next: string[] = [];
        for (const member of level) {
          if (reached.has(member)) continue;
          reached.add(member);
          const inner = this.groups.get(member);
          if (inner !== undefined && nested) next.push(...inner.members);
        }
        level = next;
      }
      for (const member of reached) {
        const set = this.productGroups.get(member) ?? new Set<string>();
        set.add(productGroup);
        this.productGroups.set(member, set);
      }
    }
  }

  /** The mapped product groups of a DN, sorted. */
  of(dn: string): string[] {
    return [...(this.productGroups.get(normalizeDn(dn)) ?? [])].sort();
  }

  /**
   * A digest of which groups there are and when each last changed: it differs from the last
   * sync's when a group's members changed, and when a group came or went (which no entry's
   * change time shows).
   */
  digest(): string {
    const lines = [...this.groups].map(([dn, group]) => `${dn}\t${group.changed}`);
    return createHash('sha256').update(lines.sort().join('\n')).digest('base64url');
  }
}
