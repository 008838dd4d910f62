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

/** Thrown inside an all-or-none transaction: the subject refuses, for this long. */
export class SubjectRefused extends Error {
  constructor(
    readonly subject: string,
    readonly retryAfterMs: number,
  ) {
    super(`refused: ${subject}`);
  }
}

export type AllOrNone = { allowed: true } | { allowed: false; subject: string; retryAfterMs: number };

/**
 * Runs `step` for every subject in one transaction, or for none: a step that throws SubjectRefused
 * rolls back the others, so a refusal uses up nothing. Subjects go in one fixed order, so two
 * transactions never wait on each other's rows crosswise (no deadlock on PostgreSQL); SQLite runs
 * one transaction at a time anyway.
 */
export async function allOrNone<T extends { subject: string }>(
  db: Db,
  items: readonly T[],
  step: (trx: Db, item: T) => Promise<void>,
): Promise<AllOrNone> {
  const ordered = [...items].sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  try {
    await db.transaction().execute(async (trx) => {
      for (const item of ordered) await step(trx, item);
    });
    return { allowed: true };
  } catch (error) {
    if (error instanceof SubjectRefused) {
      return { allowed: false, subject: error.subject, retryAfterMs: error.retryAfterMs };
    }
    throw error;
  }
}
