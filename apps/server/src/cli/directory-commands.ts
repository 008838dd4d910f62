import { directoryUsersOf } from '../bootstrap.js';
import { DirectoryUnavailableError } from '../domain/user-directory.js';
import type { DirectoryConfig } from '../directory/directory-settings.js';
import { LdapDirectory } from '../directory/ldap-directory.js';
import { CliFailure, type CliContext, type CommandGroup, noMoreArguments } from './command.js';

const NO_DIRECTORY =
  'no directory is set: DEA_LDAP_URL and DEA_LDAP_BASE_DN name it (see docs/operator/directory.md, "Users from LDAP or Active Directory")';

function directoryConfigOf(context: CliContext): DirectoryConfig {
  if (context.config.directory === undefined) throw new CliFailure(NO_DIRECTORY);
  return context.config.directory;
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
            `no user "${name}" under ${config.baseDn} with ${config.userFilter} (by ${config.attributes.username ?? 'the user name attribute'}): check DEA_LDAP_USER_FILTER, DEA_LDAP_BASE_DN and DEA_LDAP_ATTRIBUTES`,
          );
          return 1;
        }
        context.out(`dn        ${user.dn}`);
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
        const { store } = await context.open();
        const directoryUsers = directoryUsersOf(context.config, store, () => context.now());
        if (directoryUsers === undefined) throw new CliFailure(NO_DIRECTORY);
        const started = context.now();
        let summary;
        try {
          summary = await directoryUsers.syncAll((seen) => context.err(`… ${seen} directory users read`), {
            full: values.full === true,
          });
        } catch (error) {
          if (error instanceof DirectoryUnavailableError) throw new CliFailure(error.message);
          throw error;
        }
        const { created, updated, disabled, unchanged, failed, warnings, skipped } = summary;
        await store.audit.append(
          {
            event: 'directory.synced',
            actor: 'cli',
            details: {
              created,
              updated,
              disabled,
              unchanged,
              failed: failed.length,
              skipped: skipped.length,
              full: summary.full,
            },
          },
          context.now(),
        );
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
