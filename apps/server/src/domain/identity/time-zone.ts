/**
 * Zones already asked about: building a DateTimeFormat costs about 0.1 ms, which an import or a
 * sync of 50,000 users paid three times a user (2.7 s of 13 s for 10,000 rows). Bounded, so that
 * made-up names sent to a door cannot grow it without end.
 */
const known = new Map<string, boolean>();
const KNOWN_MAX = 1000;

/** Whether the runtime knows the IANA time zone (Europe/Berlin, UTC). */
export function isTimeZone(name: string): boolean {
  if (name === '') return false;
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    valid = true;
  } catch {
    valid = false;
  }
  if (known.size < KNOWN_MAX) known.set(name, valid);
  return valid;
}

/**
 * A source's time zone as provisioning takes it, one user at a time or in a batch alike: one that
 * is no time zone is left out (undefined: the user's stays as it is, a new user's is none), with a
 * warning in `warnings`; null (none) and undefined (not said) as given.
 */
export function sourcedTimeZone(
  timeZone: string | null | undefined,
  warnings: string[],
): string | null | undefined {
  if (timeZone === undefined || timeZone === null || isTimeZone(timeZone)) return timeZone;
  warnings.push(`timeZone: "${timeZone}" is not a time zone`);
  return undefined;
}
