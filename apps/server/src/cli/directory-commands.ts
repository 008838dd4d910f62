import { DirectoryUnavailableError } from '../domain/identity/user-directory.js';
import type { DirectoryConfig } from '../directory/directory-settings.js';
import { LdapDirectory } from '../directory/ldap-directory.js';
import { CliFailure, type CliContext, type CommandGroup, noMoreArguments } from './command.js';
import type { SyncSummary } from '../directory/directory-users.js';
import { answerOf, askServerToSync } from '../directory/sync-requests.js';
import { auditSync } from '../directory/sync-report.js';
import { embeddedServerRuns } from '../store/embedded-store-lock.js';
import type { Store } from '../store/store.js';

const NO_DIRECTORY =
  'no directory is set: DEA_LDAP_URL and DEA_LDAP_BASE_DN name it (see docs/operator/directory.md, "Users from LDAP or Active Directory")';

function directoryConfigOf(context: CliContext): DirectoryConfig {
  if (context.config.directory === undefined) throw new CliFailure(NO_DIRECTORY);
  return context.config.directory;
}

/** How long a running server has to take a sync asked of it before the command gives up. */
const TAKE_MS = 15_000;

/**
 * The sync asked of the server that runs on this embedded store (sync-requests.ts: SQLite lets one
 * process write at a time, and a server waiting for the file stops answering), followed until it
 * ends, its progress printed as the command's own.
 */
async function syncByServer(store: Store, full: boolean, context: CliContext): Promise<SyncSummary> {
  const { dataDir } = context.config;
  context.err(
    `a server runs on the embedded store in ${dataDir}: it writes the sync between its own requests; following it`,
  );
  const id = await askServerToSync(store, full);
  const asked = Date.now();
  let seen = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (context.interrupted().aborted)
      throw new CliFailure('interrupted: the server goes on with the sync; its end is in the audit log');
    const answer = await answerOf(store, id);
    if (answer?.state === 'done') return answer.summary;
    if (answer?.state === 'failed') throw new CliFailure(`the server's sync failed: ${answer.error}`);
    if (!embeddedServerRuns(dataDir))
      throw new CliFailure(
        `the server on ${dataDir} stopped before the sync ended: run dea directory sync again`,
      );
    if (answer === undefined && Date.now() - asked > TAKE_MS)
      throw new CliFailure(
        `the server on ${dataDir} did not take the sync within ${TAKE_MS / 1000} s (a release before this one?): its background sync (DEA_LDAP_SYNC_MINUTES) brings the users up to date, or stop it and run dea directory sync again`,
      );
    if (answer?.state === 'running' && answer.seen > seen) {
      seen = answer.seen;
      context.err(`… ${seen} directory users read`);
    }
  }
}

export const directoryCommands: CommandGroup = {
  name: 'directory',
  summary: "the organisation's LDAP directory or Active Directory as the source of users",
  commands: {
    test: {
      summary:
        'check the directory settings: connect to each URL and bind as the service account; with a NAME, find that user and show what the product would take over (fields, channels, groups). Changes nothing',
      usage: '[NAME]',
      options: {},
      async run(_values, positionals, context) {
        noMoreArguments(positionals, 1);
        const config = directoryConfigOf(context);
        const directory = new LdapDirectory(config, () => context.now());
        let failing = 0;
        for (const { url, problem } of await directory.checkEachServer()) {
          if (problem === undefined)
            context.out(
              `ok      ${url}: connected${config.bindDn === '' ? ', anonymous' : `, bound as ${config.bindDn}`}`,
            );
          else {
            failing += 1;
            context.out(`failed  ${url}: ${problem}`);
          }
        }
        const [name] = positionals;
        if (name === undefined) return failing > 0 ? 1 : 0;
        let user;
        try {
          user = await directory.findUser(name);
        } catch (error) {
          if (error instanceof DirectoryUnavailableError) throw new CliFailure(error.message);
          throw error;
        }
        if (user === undefined) {
          context.out(
            `no user "${name}" under ${config.baseDn} with ${config.userFilter.toString()} (by ${config.attributes.username ?? 'the user name attribute'}): check DEA_LDAP_USER_FILTER, DEA_LDAP_BASE_DN and DEA_LDAP_ATTRIBUTES`,
          );
          return 1;
        }
        context.out(`dn        ${user.ref}`);
        context.out(`id        ${user.externalId}`);
        context.out(`username  ${user.username}`);
        context.out(`fullName  ${user.fullName}`);
        context.out(`locale    ${user.locale ?? '(none)'}`);
        context.out(`timeZone  ${user.timeZone ?? '(none)'}`);
        context.out(`disabled  ${user.disabled ? 'yes' : 'no'}`);
        for (const [key, value] of Object.entries(user.channels))
          context.out(`${key.padEnd(9)} ${value ?? '(none)'}`);
        context.out(
          `groups    ${user.groups.length === 0 ? '(none of the mapped groups)' : user.groups.join(', ')}`,
        );
        return failing > 0 ? 1 : 0;
      },
    },
    sync: {
      summary:
        'bring the directory users up to date now: what changed since the last sync (create, update, disable those the directory has disabled), or with --full (and when DEA_LDAP_FULL_SYNC_HOURS passed) everyone, disabling those the directory no longer lists (their sessions end)',
      usage: '[--full]',
      options: { full: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store, directoryUsers } = await context.domain();
        if (directoryUsers === undefined) throw new CliFailure(NO_DIRECTORY);
        const started = context.now();
        const full = values.full === true;
        let summary: SyncSummary;
        try {
          if (context.config.databaseUrl === undefined && embeddedServerRuns(context.config.dataDir)) {
            summary = await syncByServer(store, full, context);
          } else {
            summary = await directoryUsers.syncAll((seen) => context.err(`… ${seen} directory users read`), {
              full,
            });
            await auditSync(store, summary, 'cli', context.now());
          }
        } catch (error) {
          if (error instanceof DirectoryUnavailableError) throw new CliFailure(error.message);
          throw error;
        }
        const { created, updated, disabled, unchanged, failed, warnings, skipped } = summary;
        for (const { username, reason } of failed) context.out(`failed  ${username}: ${reason}`);
        for (const { dn, reason } of skipped) context.out(`skipped ${dn}: ${reason}`);
        for (const { username, warning } of warnings) context.out(`warning ${username}: ${warning}`);
        const pass = summary.full ? `full pass (${summary.fullReason ?? 'asked for'})` : 'changes only';
        context.out(
          `Directory sync, ${pass}: ${created} created, ${updated} updated, ${disabled} disabled, ${unchanged} unchanged, ${skipped.length} skipped, ${failed.length} failed (${((context.now() - started) / 1000).toFixed(1)} s).`,
        );
        return failed.length > 0 ? 1 : 0;
      },
    },
  },
};
