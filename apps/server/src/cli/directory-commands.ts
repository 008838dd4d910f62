import { directoryUsersOf } from '../bootstrap.js';
import { DirectoryUnavailableError } from '../domain/user-directory.js';
import { CliFailure, type CommandGroup, noMoreArguments } from './command.js';

export const directoryCommands: CommandGroup = {
  name: 'directory',
  summary: "the organisation's LDAP directory or Active Directory as the source of users",
  commands: {
    sync: {
      summary:
        'bring every directory user up to date now: create, update, and disable those the directory no longer lists or has disabled (their sessions end)',
      usage: '',
      options: {},
      async run(_values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const directoryUsers = directoryUsersOf(context.config, store, () => context.now());
        if (directoryUsers === undefined) {
          throw new CliFailure(
            'no directory is set: DEA_LDAP_URL and DEA_LDAP_BASE_DN name it (see the README, "Users from LDAP or Active Directory")',
          );
        }
        const started = context.now();
        let summary;
        try {
          summary = await directoryUsers.syncAll((seen) => context.err(`… ${seen} directory users read`));
        } catch (error) {
          if (error instanceof DirectoryUnavailableError) throw new CliFailure(error.message);
          throw error;
        }
        const { created, updated, disabled, unchanged, failed, warnings } = summary;
        await store.audit.append(
          {
            event: 'directory.synced',
            actor: 'cli',
            details: { created, updated, disabled, unchanged, failed: failed.length },
          },
          context.now(),
        );
        for (const { username, reason } of failed) context.out(`failed  ${username}: ${reason}`);
        for (const { username, warning } of warnings) context.out(`warning ${username}: ${warning}`);
        context.out(
          `Directory sync: ${created} created, ${updated} updated, ${disabled} disabled, ${unchanged} unchanged, ${failed.length} failed (${((context.now() - started) / 1000).toFixed(1)} s).`,
        );
        return failed.length > 0 ? 1 : 0;
      },
    },
  },
};
