import type { ConsoleAuditQuery } from '@dea/contract';

/** The audit filters as the form holds them (datetime-local text for the times). */
export interface AuditFilters {
  event: string;
  username: string;
  actor: string;
  since: string;
  until: string;
}

export const NO_FILTERS: AuditFilters = { event: '', username: '', actor: '', since: '', until: '' };

/** A datetime-local value ('2026-11-24T09:30') as an instant, in the browser's time zone. */
function instant(local: string): string | undefined {
  if (local === '') return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The query of GET audit (and audit.csv) for these filters; empty fields are left out. */
export function auditQueryOf(filters: AuditFilters): ConsoleAuditQuery {
  const query: ConsoleAuditQuery = {};
  const event = filters.event.trim();
  const username = filters.username.trim();
  const actor = filters.actor.trim();
  if (event) query.event = event;
  if (username) query.username = username;
  if (actor) query.actor = actor;
  const since = instant(filters.since);
  const until = instant(filters.until);
  if (since) query.since = since;
  if (until) query.until = until;
  return query;
}

/** "until" before "since" finds nothing; the form says so instead of asking. */
export const rangeIsBackwards = (filters: AuditFilters): boolean => {
  const since = instant(filters.since);
  const until = instant(filters.until);
  return since !== undefined && until !== undefined && until <= since;
};
