import { exportDestinationsOf } from '../config.js';
import { hostname } from 'node:os';
import {
  type PurgeCounts,
  purgeableRows,
  purgeStore,
  retentionRulesOf,
} from '../domain/retention/retention.js';
import { PURGE_KINDS, type PurgeKind } from '../store/store.js';
import { CliFailure, type CliContext, type CommandGroup, isoTime, noMoreArguments } from './command.js';

const KIND_NAMES: Record<PurgeKind, string> = {
  codes: 'used, revoked or expired codes',
  sessions: 'ended or expired sessions',
  consoleSessions: 'ended or expired console sessions',
  signinFailures: 'forgotten sign-in failure rows',
  rateCounters: 'send-limit counters whose window ended',
  verifyAnswers: 'answers kept for retried verifications (Idempotency-Key) whose window ended',
  audit: 'audit entries past DEA_RETENTION_AUDIT_DAYS',
  outbox: 'outbox messages past DEA_RETENTION_OUTBOX_DAYS',
  channelProofs: 'proofs of a new address that expired',
  channelUndoLinks: 'links that undo a channel registration, expired or used',
  registrationChallenges: 'registration challenges that expired unopened',
  registrationSessions: 'registration sessions that expired',
  registrationLinks: 'registration links, expired or used',
  registrationOidcFlows: 'registration sign-ins at the identity provider that ran out',
  passwordLinks: 'password links, expired or used',
  consoleEnrolmentLinks: 'console enrolment links, expired or used',
  rememberedDevices: 'remembered devices, expired or forgotten',
};

function report(counts: Partial<PurgeCounts>, context: CliContext): void {
  for (const kind of PURGE_KINDS) {
    const count = counts[kind];
    if (count !== undefined) context.out(`  ${String(count).padStart(9)}  ${KIND_NAMES[kind]}`);
  }
}

/** Runs the purge (or says what it would remove) for the given kinds, as the server does. */
async function purge(kinds: readonly PurgeKind[], dryRun: boolean, context: CliContext): Promise<number> {
  const { store, keys } = await context.open();
  const rules = retentionRulesOf(context.config, exportDestinationsOf(context.config));
  if (dryRun) {
    context.out('dea purge would remove, now:');
    report(await purgeableRows(store, rules, context.now(), kinds, keys), context);
    const { auditMs, outboxMs } = rules.retention;
    context.out(
      `Audit entries are kept ${auditMs === null ? 'for ever' : `${auditMs / 86_400_000} days`}, outbox messages ${outboxMs === null ? 'for ever' : `${outboxMs / 86_400_000} days`}. Nothing was removed.`,
    );
    return 0;
  }
  const outcome = await purgeStore(store, rules, {
    now: () => context.now(),
    holder: `dea purge on ${hostname()}:${process.pid}`,
    actor: 'cli',
    kinds,
    keys,
  });
  if (!outcome.ran) {
    throw new CliFailure(
      `another purge is running (${outcome.holder}, holding it until ${isoTime(outcome.until)} at the latest): nothing done; try again when it has finished`,
    );
  }
  context.out('Removed:');
  report(outcome.removed, context);
  return 0;
}

/** `dea purge [--dry-run]`: the retention purge the servers run every DEA_PURGE_INTERVAL_SECONDS. */
export const purgeCommand: CommandGroup = {
  name: 'purge',
  summary:
    'remove what the retention settings no longer keep (the server does it every DEA_PURGE_INTERVAL_SECONDS)',
  commands: {},
  alone: {
    summary: 'remove what the retention settings no longer keep; --dry-run only counts it',
    usage: '[--dry-run]',
    options: { 'dry-run': { type: 'boolean' } },
    run(values, positionals, context) {
      noMoreArguments(positionals, 0);
      return purge(PURGE_KINDS, values['dry-run'] === true, context);
    },
  },
};

/** `dea codes purge`: the same purge, of codes alone. */
export const codeCommands: CommandGroup = {
  name: 'codes',
  summary: 'emergency codes (kept only as keyed hashes)',
  commands: {
    purge: {
      summary:
        'remove used, revoked and expired codes (dea purge does this and the rest of the retention purge)',
      usage: '[--dry-run]',
      options: { 'dry-run': { type: 'boolean' } },
      run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        return purge(['codes'], values['dry-run'] === true, context);
      },
    },
  },
};
