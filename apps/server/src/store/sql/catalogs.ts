import { sql } from 'kysely';
import type { Db, Dialect } from './db.js';
import { dialectSql } from './dialect-sql.js';

export interface CatalogRepository {
  listLanguages(): Promise<{ code: string; name: string }[]>;
  setLanguage(code: string, name: string): Promise<void>;
  /** Adds the language unless one of its code exists; true when this call added it. */
  addLanguage(code: string, name: string): Promise<boolean>;
  messages(languageCode: string): Promise<Record<string, string>>;
  /** Writes the texts; `overwrite: false` adds only the missing keys. */
  putMessages(
    languageCode: string,
    texts: Record<string, string>,
    options: { overwrite: boolean },
  ): Promise<void>;
}

/**
 * A language's texts as one statement, whatever their number: the rows come from one JSON
 * parameter (SQLite's json_each, PostgreSQL's json_each_text), where an INSERT of bound values
 * needed batches under the bound-parameter limits and Kysely built each of them. A fresh store
 * takes the built-in catalogs this way at its first start (eleven languages, about 1,700 texts):
 * 20 ms of a test app's 170 at every start on a new store (docs/benchmarks.md, "The test suite").
 */
function textRows(dialect: Dialect, texts: Record<string, string>) {
  return dialectSql(dialect).jsonObjectRows(JSON.stringify(texts));
}

export function catalogRepository(db: Db, dialect: Dialect): CatalogRepository {
  return {
    async listLanguages() {
      return db.selectFrom('languages').select(['code', 'name']).orderBy('code').execute();
    },
    async setLanguage(code, name) {
      await db
        .insertInto('languages')
        .values({ code, name })
        .onConflict((oc) => oc.column('code').doUpdateSet({ name }))
        .execute();
    },
    async addLanguage(code, name) {
      const result = await db
        .insertInto('languages')
        .values({ code, name })
        .onConflict((oc) => oc.column('code').doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },
    async messages(languageCode) {
      const rows = await db
        .selectFrom('messages')
        .select(['key', 'value'])
        .where('language_code', '=', languageCode)
        .execute();
      return Object.fromEntries(rows.map((row) => [row.key, row.value]));
    },
    async putMessages(languageCode, texts, { overwrite }) {
      if (Object.keys(texts).length === 0) return;
      const conflict = overwrite ? sql`do update set value = excluded.value` : sql`do nothing`;
      // `where true`: SQLite reads an upsert's SELECT without a WHERE as a join's ON clause.
      await sql`insert into messages (language_code, key, value)
        select ${languageCode}, rows.key, rows.value from (${textRows(dialect, texts)}) as rows
        where true
        on conflict (language_code, key) ${conflict}`.execute(db);
    },
  };
}
