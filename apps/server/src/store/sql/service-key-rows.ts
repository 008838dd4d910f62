import type { Selectable } from 'kysely';
import type { ServiceKeysTable } from '../database.js';

export interface ServiceKey {
  id: string;
  name: string;
  keyHash: string;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
  /** When keyHash was made with the secret of that time (its creation, or a re-hash after a rotation). */
  hashedAt: number;
}

/** Every column of a service key, named (a prepared statement must not say `*`). */
export const SERVICE_KEY_COLUMNS = [
  'id',
  'name',
  'key_hash',
  'scopes',
  'created_at',
  'revoked_at',
  'hashed_at',
] as const satisfies readonly (keyof ServiceKeysTable)[];
// A column of ServiceKeysTable missing from SERVICE_KEY_COLUMNS fails to compile here.
const everyKeyColumn: Record<
  Exclude<keyof ServiceKeysTable, (typeof SERVICE_KEY_COLUMNS)[number]>,
  never
> = {};
void everyKeyColumn;

/** A key as a row of service_keys (or its JSON) gives it. */
export function toServiceKey(row: Selectable<ServiceKeysTable>): ServiceKey {
  return {
    id: row.id,
    name: row.name,
    keyHash: row.key_hash,
    scopes: row.scopes.split(' ').filter(Boolean),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    hashedAt: Number(row.hashed_at ?? row.created_at),
  };
}
