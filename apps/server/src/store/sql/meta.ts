import type { Db } from './db.js';

export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /** Writes the value unless the key has one; answers the value the store holds afterwards. */
  setIfAbsent(key: string, value: string): Promise<string>;
}

export function metaRepository(db: Db): MetaRepository {
  return {
    async get(key) {
      const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
      return row?.value;
    },
    async setIfAbsent(key, value) {
      await db
        .insertInto('meta')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      return (await this.get(key)) ?? value;
    },
    async set(key, value) {
      await db
        .insertInto('meta')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
    },
  };
}
