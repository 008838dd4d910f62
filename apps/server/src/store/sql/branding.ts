import { BRANDING_TYPES, type BrandingEntry, type BrandingType } from '@dea/contract';
import { flag, type Db } from './db.js';

export interface BrandingRepository {
  list(): Promise<BrandingEntry[]>;
  set(entry: BrandingEntry): Promise<void>;
  /** Adds the entries that are missing; keeps what an operator changed. */
  ensure(entries: BrandingEntry[]): Promise<void>;
}

const isBrandingType = (value: string): value is BrandingType =>
  (BRANDING_TYPES as readonly string[]).includes(value);

export function brandingRepository(db: Db): BrandingRepository {
  return {
    async list() {
      const rows = await db.selectFrom('branding').selectAll().orderBy('name').execute();
      return rows.map(
        (row): BrandingEntry => ({
          name: row.name,
          type: isBrandingType(row.type) ? row.type : 'text',
          value: row.value,
          isDefault: row.is_default === 1,
        }),
      );
    },
    async set(entry) {
      const values = { type: entry.type, value: entry.value, is_default: flag(entry.isDefault) };
      await db
        .insertInto('branding')
        .values({ name: entry.name, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet(values))
        .execute();
    },
    async ensure(entries) {
      if (entries.length === 0) return;
      await db
        .insertInto('branding')
        .values(
          entries.map((entry) => ({
            name: entry.name,
            type: entry.type,
            value: entry.value,
            is_default: flag(entry.isDefault),
          })),
        )
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    },
  };
}
