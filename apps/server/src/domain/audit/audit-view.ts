import { type ConsoleAuditEntry, type ConsoleAuditPage, type ConsoleAuditQuery } from '@dea/contract';
import { stringify } from 'csv-stringify/sync';
import type { AuditEntry, AuditFilter, Store } from '../../store/store.js';
import { invalidRequest } from '../errors.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { auditScopeOf } from '../console/console-scope.js';
import { userNamed } from '../identity/user-names.js';

const PAGE = 50;
/** The entries one page of a CSV download reads from the store. */
export const CSV_PAGE = 1000;
const CSV_COLUMNS = ['at', 'event', 'username', 'userId', 'actor', 'clientAddress', 'details'] as const;

/** Leading characters a spreadsheet may skip before it reads a formula: spaces, controls, format characters. */
const LEADING_BLANKS = /^[\p{White_Space}\p{Cc}\p{Cf}]*/u;
/** What starts a formula once the cell is NFKC-normalised (U+2212, the minus sign, has no NFKC mapping). */
const FORMULA_START = /^[=+\-@\u2212]/;

/**
 * A cell a spreadsheet could run as a formula is prefixed with ' (OWASP's CSV injection advice):
 * after NFKC normalisation (fullwidth ＝ ＋ － ＠, small ﹢ ﹦, super- and subscript signs become
 * = + - @) and after any leading spaces, controls and format characters, it starts with
 * = + - @ (or the minus sign), or those leading characters hold a tab or a carriage return.
 */
export function safeCell(text: string): string {
  const normal = text.normalize('NFKC');
  const blanks = LEADING_BLANKS.exec(normal)?.[0] ?? '';
  const formula = /[\t\r]/.test(blanks) || FORMULA_START.test(normal.slice(blanks.length));
  return formula ? `'${text}` : text;
}

function time(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw invalidRequest(`${name} must be a time such as 2026-11-24T09:00:00Z`);
  return at;
}

/** The audit log for the console: filtered, in pages (newest first), and as CSV. */
export class AuditView {
  constructor(private readonly store: Store) {}

  async page(caller: ConsoleCaller, query: ConsoleAuditQuery): Promise<ConsoleAuditPage> {
    const filter = await this.filterOf(caller, query);
    if (filter === undefined) return { entries: [], next: null };
    const limit = query.limit === undefined ? PAGE : Math.min(500, Number(query.limit));
    const rows = await this.store.audit.list({ ...filter, limit: limit + 1 });
    const entries = await this.withNames(rows.slice(0, limit));
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return { entries, next: last === undefined ? null : `${last.at}.${last.id}` };
  }

  /**
   * Every entry of the filter, newest first, as CSV with a header line, without a cap: read from
   * the store in keyset pages of CSV_PAGE entries, each written before the next is read, so the
   * memory a download holds is one page whatever its length. The caller's rights and the filter are
   * checked before the first line (a refusal is an answer, not a broken download).
   */
  async csv(caller: ConsoleCaller, query: ConsoleAuditQuery): Promise<AsyncIterable<string>> {
    const filter = await this.filterOf(caller, query);
    return this.csvLines(filter);
  }

  private async *csvLines(filter: AuditFilter | undefined): AsyncGenerator<string> {
    yield stringify([], { header: true, columns: [...CSV_COLUMNS] });
    let after = filter?.after;
    while (filter !== undefined) {
      const batch = await this.store.audit.list({ ...filter, after, limit: CSV_PAGE });
      const entries = await this.withNames(batch);
      yield stringify(
        entries.map((entry) =>
          CSV_COLUMNS.map((column) =>
            safeCell(column === 'details' ? JSON.stringify(entry.details) : (entry[column] ?? '')),
          ),
        ),
      );
      const last = batch.at(-1);
      if (last === undefined || batch.length < CSV_PAGE) return;
      after = { at: last.at, id: last.id };
    }
  }

  /** The store's filter, or undefined when it cannot match (a user name nobody has). */
  private async filterOf(caller: ConsoleCaller, query: ConsoleAuditQuery): Promise<AuditFilter | undefined> {
    const cursor = query.cursor === undefined ? undefined : /^(\d+)\.(.+)$/.exec(query.cursor);
    if (query.cursor !== undefined && (cursor === undefined || cursor === null))
      throw invalidRequest('cursor is not one this server gave');
    let userId: string | undefined;
    if (query.username !== undefined) {
      const user = await userNamed(this.store, query.username);
      if (user === undefined) return undefined;
      userId = user.id;
    }
    return {
      // A scoped auditor sees entries about the members of their groups alone (console-scope.ts).
      ...auditScopeOf(caller.account),
      ...(userId !== undefined && { userId }),
      ...(query.event !== undefined && { event: query.event }),
      ...(query.actor !== undefined && { actor: query.actor }),
      ...(query.since !== undefined && { since: time(query.since, 'since') }),
      ...(query.until !== undefined && { until: time(query.until, 'until') }),
      ...(cursor?.[1] !== undefined &&
        cursor[2] !== undefined && { after: { at: Number(cursor[1]), id: cursor[2] } }),
    };
  }

  private async withNames(rows: AuditEntry[]): Promise<ConsoleAuditEntry[]> {
    // Asked together: the store reads the ids of one turn in one statement (store/sql/hot-path/by-turn.ts).
    const ids = [...new Set(rows.map((row) => row.userId).filter((id): id is string => id !== null))];
    const found = await Promise.all(ids.map((id) => this.store.users.findById(id)));
    const names = new Map(ids.map((id, index) => [id, found[index]?.username ?? null]));
    return rows.map((row) => ({
      id: row.id,
      at: new Date(row.at).toISOString(),
      event: row.event,
      userId: row.userId,
      username: row.userId === null ? null : (names.get(row.userId) ?? null),
      actor: row.actor,
      clientAddress: row.clientAddress,
      details: row.details,
    }));
  }
}
