import { type RawBuilder, sql, type Selectable } from 'kysely';
import type { UsersTable } from '../database.js';
import { parseJsonObject, type Db, type Dialect } from './db.js';
import { dialectSql } from './dialect-sql.js';
import { toUser } from './user-row.js';
import type { User } from './users.js';

/** What the help desk's search looks for (domain/help-desk/help-desk.ts). */
export interface HelpDeskSearch {
  /** A part of the canonical user name, compared as written. */
  usernamePart: string;
  /** A part of the full name, lowercase (compared with the name in lowercase). */
  fullNamePart: string;
  /** Digits a channel's address ends in: the first `addressLimit` of those users by id match too. */
  addressEnding?: string;
  addressLimit: number;
  /** The policy category whose policy each candidate comes with (their first group's by priority, then name). */
  category: string;
}

/** A user the search may answer, with what its checks need: their groups and their policy. */
export interface HelpDeskCandidate {
  user: User;
  /** Found by a channel's address (`addressEnding`), not by a name. */
  byAddress: boolean;
  /** The names of their groups, in order. */
  groups: string[];
  policy: Record<string, unknown> | undefined;
}

/**
 * The help desk's candidates in one statement: the users whose name has the part (or whose full
 * name has it, or with a channel ending in the digits), by user name, each with their groups and
 * their policy of the category. A full name is compared in lowercase by the store only when it is
 * ASCII, where the store's lower() is the browser's; any other comes along, for the caller to
 * compare (domain/help-desk/help-desk.ts compares every candidate found by a name again), so that the store never leaves out one the caller would find.
 */
export async function helpDeskCandidates(
  db: Db,
  dialect: Dialect,
  search: HelpDeskSearch,
): Promise<HelpDeskCandidate[]> {
  const spoken = dialectSql(dialect);
  const has = (column: RawBuilder<unknown>, part: string) => spoken.contains(column, part);
  const notAscii = spoken.holdsNonAscii(sql`u.full_name`);
  const byAddress =
    search.addressEnding === undefined
      ? sql<boolean>`false`
      : sql<boolean>`u.id in (select e.user_id from (select distinct ch.user_id from channels ch where ch.address like ${`%${search.addressEnding}`} order by ch.user_id limit ${sql.lit(search.addressLimit)}) e)`;
  const { rows } = await sql<
    Selectable<UsersTable> & {
      group_name: string | null;
      policy_options: string | null;
      by_address: number | boolean;
    }
  >`select u.*, g.name as group_name, ${byAddress} as by_address,
  (select p.options from policies p
     join user_groups pm on pm.group_id = p.group_id
     join groups pgr on pgr.id = p.group_id
   where pm.user_id = u.id and p.category = ${search.category}
   order by pgr.priority desc, pgr.name limit 1) as policy_options
from users u
left join user_groups ug on ug.user_id = u.id
left join groups g on g.id = ug.group_id
where ${has(sql`u.username`, search.usernamePart)}
  or ${has(sql`lower(u.full_name)`, search.fullNamePart)}
  or ${notAscii}
  or ${byAddress}
order by u.username, g.name`.execute(db);
  const found: HelpDeskCandidate[] = [];
  for (const row of rows) {
    const { group_name: group, policy_options: options, by_address: byAddress, ...user } = row;
    let last = found.at(-1);
    if (last?.user.id !== user.id) {
      last = {
        user: toUser(user),
        byAddress: byAddress === true || Number(byAddress) === 1,
        groups: [],
        policy: options === null ? undefined : parseJsonObject(options),
      };
      found.push(last);
    }
    if (group !== null) last.groups.push(group);
  }
  return found;
}
