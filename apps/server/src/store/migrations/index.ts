import type { Kysely, Migration, MigrationProvider } from 'kysely';
import * as initial from './0001-initial.js';
import * as signinThrottle from './0002-signin-throttle.js';
import * as rateCounters from './0003-rate-counters.js';
import * as verifyFailures from './0004-verify-failures.js';
import * as userTimeZone from './0005-user-time-zone.js';
import * as userSource from './0006-user-source.js';
import * as consoleAccounts from './0007-console.js';
import * as activeCodesIndex from './0008-active-codes-index.js';
import * as retention from './0009-retention.js';
import * as serviceKeyHashedAt from './0010-service-key-hashed-at.js';
import * as issueCodeFunction from './0011-issue-code-function.js';
import * as codesExpiryIndex from './0012-codes-expiry-index.js';
import * as issueCodeGenericPlan from './0013-issue-code-generic-plan.js';
import * as canonicalUserNames from './0014-canonical-user-names.js';
import * as groupSource from './0015-group-source.js';
import * as consoleEnrolmentLinks from './0016-console-enrolment-links.js';
import * as auditChain from './0017-audit-chain.js';
import * as verifyAnswers from './0018-verify-answers.js';
import * as verifyCodeFunction from './0019-verify-code-function.js';
import * as scimAttributes from './0020-scim-attributes.js';
import * as scimModified from './0021-scim-modified.js';
import * as consoleOidc from './0022-console-oidc.js';
import * as consoleScope from './0023-console-scope.js';
import * as consoleDirectory from './0024-console-directory.js';
import * as peopleInTheConsole from './0025-people-in-the-console.js';
import * as reportIndexes from './0026-report-indexes.js';
import * as channelProofs from './0027-channel-proofs.js';
import * as registrationSessions from './0028-registration-sessions.js';
import * as verifyFailuresKept from './0029-verify-failures-kept.js';
import * as registrationOidcFlows from './0030-registration-oidc-flows.js';
import * as userPasskeys from './0031-user-passkeys.js';
import * as purgeIndexes from './0032-purge-indexes.js';
import * as rememberedDevices from './0033-remembered-devices.js';
import * as codesUsedInPlace from './0034-codes-used-in-place.js';
import * as auditStamps from './0035-audit-stamps.js';
import * as registrationOidcLinks from './0037-registration-oidc-links.js';
import * as blockedAddresses from './0036-blocked-addresses.js';
import * as scimAttributesAsGiven from './0038-scim-attributes-as-given.js';

/**
 * A migration that can refuse to run exports `problems`: what stops it, found without changing
 * anything (`dea migrate --dry-run` lists them).
 */
export type CheckedMigration = Migration & { problems?: (db: Kysely<unknown>) => Promise<string[]> };

/** Versioned migrations, applied in name order at start. Never edit one that has shipped. */
const MIGRATIONS: Record<string, CheckedMigration> = {
  '0001-initial': initial,
  '0002-signin-throttle': signinThrottle,
  '0003-rate-counters': rateCounters,
  '0004-verify-failures': verifyFailures,
  '0005-user-time-zone': userTimeZone,
  '0006-user-source': userSource,
  '0007-console': consoleAccounts,
  '0008-active-codes-index': activeCodesIndex,
  '0009-retention': retention,
  '0010-service-key-hashed-at': serviceKeyHashedAt,
  '0011-issue-code-function': issueCodeFunction,
  '0012-codes-expiry-index': codesExpiryIndex,
  '0013-issue-code-generic-plan': issueCodeGenericPlan,
  '0014-canonical-user-names': canonicalUserNames,
  '0015-group-source': groupSource,
  '0016-console-enrolment-links': consoleEnrolmentLinks,
  '0017-audit-chain': auditChain,
  '0018-verify-answers': verifyAnswers,
  '0019-verify-code-function': verifyCodeFunction,
  '0020-scim-attributes': scimAttributes,
  '0021-scim-modified': scimModified,
  '0022-console-oidc': consoleOidc,
  '0023-console-scope': consoleScope,
  '0024-console-directory': consoleDirectory,
  '0025-people-in-the-console': peopleInTheConsole,
  '0026-report-indexes': reportIndexes,
  '0027-channel-proofs': channelProofs,
  '0028-registration-sessions': registrationSessions,
  '0029-verify-failures-kept': verifyFailuresKept,
  '0030-registration-oidc-flows': registrationOidcFlows,
  '0031-user-passkeys': userPasskeys,
  '0032-purge-indexes': purgeIndexes,
  '0033-remembered-devices': rememberedDevices,
  '0034-codes-used-in-place': codesUsedInPlace,
  '0035-audit-stamps': auditStamps,
  '0037-registration-oidc-links': registrationOidcLinks,
  '0036-blocked-addresses': blockedAddresses,
  '0038-scim-attributes-as-given': scimAttributesAsGiven,
};

/**
 * The release that made each schema change (the root package.json's version when it shipped):
 * `dea migrate` and the server's start name it beside each change applied. Every migration has
 * one (store/migrations/releases.test.ts); a new migration names the release under way.
 */
const MIGRATION_RELEASES: Record<string, string> = {
  '0001-initial': '8.0.20',
  '0002-signin-throttle': '8.0.20',
  '0003-rate-counters': '8.0.20',
  '0004-verify-failures': '8.0.20',
  '0005-user-time-zone': '8.0.20',
  '0006-user-source': '8.0.20',
  '0007-console': '8.0.20',
  '0008-active-codes-index': '8.0.20',
  '0009-retention': '8.0.20',
  '0010-service-key-hashed-at': '8.0.20',
  '0011-issue-code-function': '8.0.20',
  '0012-codes-expiry-index': '8.0.20',
  '0013-issue-code-generic-plan': '8.0.20',
  '0014-canonical-user-names': '8.0.20',
  '0015-group-source': '8.0.20',
  '0016-console-enrolment-links': '8.0.20',
  '0017-audit-chain': '8.0.20',
  '0018-verify-answers': '8.0.20',
  '0019-verify-code-function': '8.0.20',
  '0020-scim-attributes': '8.0.20',
  '0021-scim-modified': '8.0.20',
  '0022-console-oidc': '8.0.20',
  '0023-console-scope': '8.0.20',
  '0024-console-directory': '8.0.20',
  '0025-people-in-the-console': '8.0.20',
  '0026-report-indexes': '8.0.20',
  '0027-channel-proofs': '8.0.20',
  '0028-registration-sessions': '8.0.20',
  '0029-verify-failures-kept': '8.0.20',
  '0030-registration-oidc-flows': '8.0.20',
  '0031-user-passkeys': '8.0.20',
  '0032-purge-indexes': '8.0.20',
  '0033-remembered-devices': '8.0.20',
  '0034-codes-used-in-place': '8.0.20',
  '0035-audit-stamps': '8.0.20',
  '0036-blocked-addresses': '8.0.20',
  '0037-registration-oidc-links': '8.0.20',
  '0038-scim-attributes-as-given': '8.0.20',
};

/**
 * Schema changes with the releases that made them, for a person and a log: the names in order,
 * each run of one release closed by it: `0037-a, 0038-b (release 8.0.20), 0039-c (release 2026.12.0)`.
 */
export function withReleases(names: readonly string[]): string {
  const parts: string[] = [];
  names.forEach((name, index) => {
    const release = MIGRATION_RELEASES[name];
    const next = names[index + 1];
    const closes = next === undefined || MIGRATION_RELEASES[next] !== release;
    parts.push(
      closes
        ? `${name} (${release === undefined ? 'a release this one does not know' : `release ${release}`})`
        : name,
    );
  });
  return parts.join(', ');
}

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};

/** The release that made a schema change; undefined for a name this release does not know. */
export function releaseOf(name: string): string | undefined {
  return MIGRATION_RELEASES[name];
}

/** The names of this version's migrations, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

/** What stops the pending migrations, each line naming the rows; empty when nothing does. */
export async function pendingProblems(db: Kysely<unknown>, pending: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of pending) found.push(...((await MIGRATIONS[name]?.problems?.(db)) ?? []));
  return found;
}
