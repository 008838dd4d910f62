import { canonicalUsername, checkUsername, usernameRefusalText } from '@dea/contract';
import { sql, type Kysely } from 'kysely';

/** The tables whose user names are compared, limited and audited in their canonical form. */
const TABLES = [
  { table: 'users', what: 'user' },
  { table: 'console_accounts', what: 'console account' },
] as const;

interface NamedRow {
  id: string;
  username: string;
}

async function rowsOf(db: Kysely<unknown>, table: string): Promise<NamedRow[]> {
  const result = await sql<NamedRow>`select id, username from ${sql.table(table)} order by username`.execute(
    db,
  );
  return result.rows;
}

/** The rows of a table an earlier pending migration has yet to make (a dry run from far behind): none. */
async function existingRowsOf(db: Kysely<unknown>, table: string): Promise<NamedRow[]> {
  try {
    return await rowsOf(db, table);
  } catch (error) {
    if (/no such table|does not exist/i.test((error as Error).message)) return [];
    throw error;
  }
}

/**
 * What stops user names from taking their canonical form (RFC 8265, ADR 0016): names that fold to
 * one another (`Alice` and `alice`), and names the profile does not allow. Each is one line that
 * names the rows; `dea migrate --dry-run` lists them before anything is changed.
 */
export async function problems(db: Kysely<unknown>): Promise<string[]> {
  const found: string[] = [];
  for (const { table, what } of TABLES) {
    const byCanonical = new Map<string, NamedRow[]>();
    for (const row of await existingRowsOf(db, table)) {
      const checked = checkUsername(row.username);
      if (!checked.ok) {
        found.push(
          `${what} "${row.username}" (id ${row.id}): ${usernameRefusalText(checked)}; rename or remove it with the version in use before upgrading`,
        );
        continue;
      }
      byCanonical.set(checked.username, [...(byCanonical.get(checked.username) ?? []), row]);
    }
    for (const [canonical, rows] of byCanonical) {
      if (rows.length < 2) continue;
      const names = rows.map((row) => `"${row.username}" (id ${row.id})`).join(', ');
      found.push(
        `${what}s ${names} are one name once folded ("${canonical}"): they are not merged; keep one, rename or remove the others with the version in use, then upgrade`,
      );
    }
  }
  return found;
}

/**
 * Every user name and console account name in its canonical form, so that a look-up by any
 * spelling finds the one row. Refused, with nothing changed, while any name collides with another
 * once folded or is not allowed: two people never become one silently.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const found = await problems(db);
  if (found.length > 0)
    throw new Error(
      `${found.length} user name${found.length === 1 ? '' : 's'} cannot take the canonical form: ${found.join('; ')}`,
    );
  for (const { table } of TABLES) {
    for (const row of await rowsOf(db, table)) {
      const canonical = canonicalUsername(row.username);
      if (canonical === undefined || canonical === row.username) continue;
      await sql`update ${sql.table(table)} set username = ${canonical} where id = ${row.id}`.execute(db);
    }
  }
}

/** The names stay canonical: the spellings they had are not kept. */
export async function down(): Promise<void> {}
