import type { Db } from './db.js';

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

/** Rows per INSERT: well under the bound-parameter limits of both databases. */
const BATCH = 200;

export function catalogRepository(db: Db): CatalogRepository {
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
      const rows = Object.entries(texts).map(([key, value]) => ({
        language_code: languageCode,
        key,
        value,
      }));
      await db.transaction().execute(async (trx) => {
        for (let start = 0; start < rows.length; start += BATCH) {
          await trx
            .insertInto('messages')
            .values(rows.slice(start, start + BATCH))
            .onConflict((oc) => {
              const target = oc.columns(['language_code', 'key']);
              return overwrite
                ? target.doUpdateSet((eb) => ({ value: eb.ref('excluded.value') }))
                : target.doNothing();
            })
            .execute();
        }
      });
    },
  };
}
