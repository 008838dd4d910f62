import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

export const flag = (value: boolean): number => (value ? 1 : 0);

export function parseJsonObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
