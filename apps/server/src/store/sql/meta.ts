import type { MetaRepository } from '../store.js';
import type { Db } from './db.js';

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
