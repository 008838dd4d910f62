import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDED_STORE_FILE } from '../store/open-store.js';
import { withReleases } from '../store/migrations/index.js';
import type { CommandGroup } from './command.js';

/**
 * `dea migrate [--dry-run]`: brings the store's schema to this version's, or says what that would
 * do. The one command that changes the schema; every other refuses a schema that is behind.
 */
export const migrateCommand: CommandGroup = {
  name: 'migrate',
  summary: "bring the store's schema up to this version (the server does it at start unless DEA_MIGRATE=off)",
  commands: {},
  alone: {
    summary:
      "bring the store's schema up to this version, making a new embedded store where DEA_DATA_DIR has none; --dry-run only says what would be applied",
    usage: '[--dry-run]',
    options: { 'dry-run': { type: 'boolean' } },
    async run(values, _positionals, context) {
      const dryRun = values['dry-run'] === true;
      const { config } = context;
      const isNew =
        !dryRun && config.databaseUrl === undefined && !existsSync(join(config.dataDir, EMBEDDED_STORE_FILE));
      const { store } = await context.open({ schema: 'as-is', create: !dryRun });
      if (isNew) context.out(`Made a new embedded store in ${config.dataDir}.`);
      const state = await store.schema.state();
      const at = state.applied.at(-1) ?? 'empty';
      if (state.unknown.length > 0) {
        context.err(
          `the store was migrated by a newer version (its schema is at ${at}; this version knows up to ${state.known.at(-1) ?? 'none'}): nothing done`,
        );
        return 1;
      }
      if (state.pending.length === 0) {
        context.out(`The schema is up to date (${at}).`);
        return 0;
      }
      if (dryRun) {
        const problems = await store.schema.problems(state.pending);
        context.out(`The schema is at ${at}; dea migrate would apply: ${withReleases(state.pending)}.`);
        if (problems.length === 0) return 0;
        context.err(`It would stop, changing nothing, until these are resolved:\n- ${problems.join('\n- ')}`);
        return 1;
      }
      const applied = await store.schema.migrate();
      context.out(`Applied ${withReleases(applied)}; the schema is at ${applied.at(-1) ?? at}.`);
      return 0;
    },
  },
};
