import type { Selectable } from 'kysely';
import type { UsersTable } from '../database.js';
import type { User, UserSource } from './users.js';

/**
 * Every column of a user, named: a statement prepared once (prepared-statements.ts) must not say
 * `users.*`, whose meaning a migration adding a column changes under it.
 */
export const USER_COLUMNS = [
  'id',
  'username',
  'password_hash',
  'full_name',
  'locale',
  'disabled',
  'created_at',
  'last_login_at',
  'current_login_at',
  'time_zone',
  'source',
  'external_id',
  'given_name',
  'family_name',
  'primary_email',
  'primary_phone',
  'display_name',
  'formatted_name',
  'updated_at',
] as const satisfies readonly (keyof UsersTable)[];
// A column of UsersTable missing from USER_COLUMNS fails to compile here.
const everyUserColumn: Record<Exclude<keyof UsersTable, (typeof USER_COLUMNS)[number]>, never> = {};
void everyUserColumn;

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    username: row.username,
    passwordHash: row.password_hash,
    fullName: row.full_name,
    locale: row.locale,
    disabled: row.disabled === 1,
    createdAt: Number(row.created_at),
    lastLoginAt: row.last_login_at === null ? null : Number(row.last_login_at),
    currentLoginAt: row.current_login_at === null ? null : Number(row.current_login_at),
    timeZone: row.time_zone,
    source: row.source as UserSource,
    externalId: row.external_id,
    givenName: row.given_name,
    familyName: row.family_name,
    primaryEmail: row.primary_email,
    primaryPhone: row.primary_phone,
    displayName: row.display_name,
    formattedName: row.formatted_name,
    updatedAt: row.updated_at === null ? null : Number(row.updated_at),
  };
}
