import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEntry, AuditFilter, Store } from '../store/store.js';
import {
  type CliContext,
  type CommandGroup,
  isoTime,
  noMoreArguments,
  optionText,
  type OptionValues,
  positiveInteger,
  UsageError,
} from './command.js';
import { userNamed } from '../domain/identity/user-names.js';
import { readFile } from 'node:fs/promises';
import { readAnchor, verifyAuditTrail } from '../domain/audit/audit-trail.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_LIMIT = 10_000;

/** `--since`: an ISO time (2026-11-21T09:00:00Z, 2026-11-21) or an age (30s, 15m, 2h, 1d). */
export function parseSince(text: string, now: number): number {
  const age = /^(\d{1,6})([smhd])$/.exec(text);
  if (age) return now - Number(age[1]) * (UNIT_MS[age[2] ?? 's'] ?? 1000);
  const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at))
    throw new UsageError(
      `--since "${text}" must be an ISO time (2026-11-21T09:00:00Z) or an age (15m, 2h, 1d)`,
    );
  return at;
}

/** The entries, with user names, as the operator reads them. */
interface ShownEntry extends AuditEntry {
  username: string | null;
}

function line(entry: ShownEntry): string {
  const parts = [isoTime(entry.at), entry.event];
  if (entry.userId !== null) parts.push(`user=${entry.username ?? entry.userId}`);
  if (entry.actor !== null) parts.push(`actor=${entry.actor}`);
  if (entry.clientAddress !== null) parts.push(`from=${entry.clientAddress}`);
  if (Object.keys(entry.details).length > 0) parts.push(JSON.stringify(entry.details));
  return parts.join('  ');
}

async function filterOf(values: OptionValues, context: CliContext, store: Store): Promise<AuditFilter> {
  const filter: AuditFilter = {};
  const user = optionText(values, 'user');
  if (user !== undefined) {
    // A removed user's entries stay: their id (from an earlier listing) still filters.
    const found = await userNamed(store, user);
    filter.userId = found?.id ?? user;
  }
  const event = optionText(values, 'event');
  if (event !== undefined) filter.event = event;
  const since = optionText(values, 'since');
  if (since !== undefined) filter.since = parseSince(since, context.now());
  return filter;
}

async function namer(store: Store): Promise<(entry: AuditEntry) => ShownEntry> {
  const usernames = new Map((await store.users.list()).map((user) => [user.id, user.username]));
  return (entry) => ({
    ...entry,
    username: entry.userId === null ? null : (usernames.get(entry.userId) ?? null),
  });
}

export interface FollowOptions {
  store: Store;
  filter: AuditFilter;
  /** How many of the newest entries to show first. */
  backlog: number;
  print: (entry: AuditEntry) => void | Promise<void>;
  signal: AbortSignal;
  intervalMs?: number;
  /** Stops after this many polls (tests); unbounded by default. */
  maxPolls?: number;
}

/**
 * Prints the newest entries, then every new one, polling the store (shared by all instances)
 * until the signal aborts. Entries written in the same millisecond as the last one shown are
 * told apart by id, so none is shown twice.
 */
export async function followAudit(options: FollowOptions): Promise<void> {
  const { store, filter, print, signal, intervalMs = 1000, maxPolls = Infinity } = options;
  let since = filter.since;
  let seenAtSince = new Set<string>();
  for (let poll = 0; poll < maxPolls && !signal.aborted; poll += 1) {
    const limit = poll === 0 ? options.backlog : 1000;
    const entries = (await store.audit.list({ ...filter, since, limit }))
      .reverse()
      .filter((entry) => !seenAtSince.has(entry.id));
    for (const entry of entries) await print(entry);
    const last = entries.at(-1);
    if (last !== undefined) {
      if (last.at !== since) seenAtSince = new Set();
      since = last.at;
      for (const entry of entries) if (entry.at === since) seenAtSince.add(entry.id);
    } else if (since === undefined) {
      since = 0;
    }
    if (poll + 1 >= maxPolls) break;
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      break;
    }
  }
}

const filterOptions = {
  user: { type: 'string' },
  event: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string', short: 'n' },
} as const;

export const auditCommands: CommandGroup = {
  name: 'audit',
  summary: 'the audit log: codes issued, sent, used and refused, sign-ins, operator changes',
  commands: {
    verify: {
      summary:
        'check the chain of the audit trail (from its start, or from --since), and its end against an exported copy (--anchor); name the first entry that breaks it and every entry the product did not write',
      usage: '[--since 2h|ISO-TIME] [--anchor EXPORTED-FILE]',
      options: { since: { type: 'string' }, anchor: { type: 'string' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const sinceText = optionText(values, 'since');
        const since = sinceText === undefined ? undefined : parseSince(sinceText, context.now());
        const anchorFile = optionText(values, 'anchor');
        let anchorText: string | undefined;
        if (anchorFile !== undefined) {
          try {
            anchorText = await readFile(anchorFile, 'utf8');
          } catch (error) {
            throw new UsageError(
              `--anchor ${anchorFile}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
              false,
            );
          }
        }
        const { store, keys } = await context.open();
        const reading = anchorText === undefined ? undefined : readAnchor(anchorText, keys);
        if (reading !== undefined && reading.anchor === undefined) {
          const why = [
            reading.unsigned > 0 ? `${reading.unsigned} whose signature does not match (changed)` : '',
            reading.unknownKey > 0
              ? `${reading.unknownKey} signed under a secret that is not configured (set DEA_SECRET_PREVIOUS)`
              : '',
          ].filter(Boolean);
          context.err(
            `The end of the audit trail cannot be checked: ${anchorFile ?? ''} holds no head signed under the configured secret${why.length > 0 ? ` (heads found: ${why.join(', ')})` : ' (give the file DEA_AUDIT_FILE writes, or a copy of what syslog or the HTTPS endpoint received)'}.`,
          );
          return 1;
        }
        const verified = await verifyAuditTrail(store, keys, since, reading?.anchor);
        const waiting =
          verified.unsealed - verified.forgedCount <= 0
            ? ''
            : ` ${verified.unsealed - verified.forgedCount} newer entries are not chained yet (a running server chains them within a second).`;
        const { broken } = verified;
        let failed = false;
        if (verified.forgedCount > 0) {
          failed = true;
          context.err(
            verified.forgedCount === 1
              ? '1 entry in the audit log was not written by the product and is not part of the trail:'
              : `${verified.forgedCount} entries in the audit log were not written by the product and are not part of the trail:`,
          );
          for (const forged of verified.forged)
            context.err(`  ${forged.id} (${forged.event} at ${isoTime(forged.at)}): ${forged.reason}`);
        }
        if (broken !== undefined) {
          const entry =
            broken.mark !== undefined
              ? `the chain's ${broken.mark} (at #${broken.seq})`
              : broken.id === undefined
                ? `entry #${broken.seq}`
                : `entry #${broken.seq} (${broken.id}, ${broken.event ?? ''} at ${isoTime(broken.at ?? 0)})`;
          context.err(
            `The audit trail does not verify: ${entry}: ${broken.reason}. ${verified.checked} entries before it verified.`,
          );
          return 1;
        }
        if (failed) {
          context.err(
            `The chain of the audit trail verifies (${verified.checked} entries), but the log holds the entries above.`,
          );
          return 1;
        }
        context.out(
          verified.checked === 0
            ? `The audit trail verifies: no chained entries${since === undefined ? '' : ' since then'}.${waiting}`
            : `The audit trail verifies: ${verified.checked} entries, #${verified.firstSeq ?? 0} to #${verified.lastSeq ?? 0}.${waiting}`,
        );
        const { anchor } = verified;
        context.out(
          anchor === undefined
            ? 'Not proven without an exported copy (--anchor): that no entries were removed from the end of the trail together with its head, nor the trail rolled back to an earlier state of the database.'
            : `Its end holds the exported copy's signed head of ${isoTime(anchor.at)} (#${anchor.seq}): nothing up to there was cut away or rolled back${(verified.lastSeq ?? 0) > anchor.seq ? `; entries #${anchor.seq + 1} to #${verified.lastSeq ?? 0} are newer than the copy, and not proven by it` : ''}.`,
        );
        return 0;
      },
    },
    list: {
      summary: 'list entries, oldest first, of the newest --limit (default 50)',
      usage: '[--user USERNAME] [--event EVENT] [--since 2h|ISO-TIME] [--limit N] [--json]',
      options: { ...filterOptions, json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const limit = Math.min(positiveInteger(values.limit, 'limit', 50), MAX_LIMIT);
        if (optionText(values, 'since') !== undefined) parseSince(optionText(values, 'since') ?? '', 0);
        const { store } = await context.open();
        const filter = await filterOf(values, context, store);
        const name = await namer(store);
        const entries = (await store.audit.list({ ...filter, limit })).reverse().map(name);
        if (values.json === true) {
          context.out(
            JSON.stringify(
              entries.map((entry) => ({ ...entry, at: isoTime(entry.at) })),
              null,
              2,
            ),
          );
          return 0;
        }
        if (entries.length === 0) context.out('No audit entries.');
        for (const entry of entries) context.out(line(entry));
        return 0;
      },
    },
    follow: {
      summary: 'show the newest entries, then each new one as it is written, until Ctrl-C',
      usage: '[--user USERNAME] [--event EVENT] [--since 2h|ISO-TIME] [--limit N] [--json]',
      options: { ...filterOptions, json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const backlog = Math.min(positiveInteger(values.limit, 'limit', 10), MAX_LIMIT);
        if (optionText(values, 'since') !== undefined) parseSince(optionText(values, 'since') ?? '', 0);
        const { store } = await context.open();
        const filter = await filterOf(values, context, store);
        let name = await namer(store);
        await followAudit({
          store,
          filter,
          backlog,
          signal: context.interrupted(),
          async print(entry) {
            // A user added while following gets their name on the next entry.
            if (entry.userId !== null && name(entry).username === null) name = await namer(store);
            const shown = name(entry);
            context.out(
              values.json === true ? JSON.stringify({ ...shown, at: isoTime(shown.at) }) : line(shown),
            );
          },
        });
        return 0;
      },
    },
  },
};
