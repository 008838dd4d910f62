import { basename } from 'node:path';
import { InvalidField } from '../domain/identity/user-fields.js';
import { IMPORT_FIELDS, ImportFileError, importBatches } from '../user-import/import-file.js';
import { IMPORT_ACTOR, type RowProblem, UserImport } from '../user-import/import-users.js';
import {
  argument,
  CliFailure,
  type Command,
  noMoreArguments,
  optionText,
  readOperatorFile,
  UsageError,
} from './command.js';

const rowLine = ({ line, username, problem }: RowProblem): string =>
  `line ${line}${username === undefined ? '' : ` (${username})`}: ${problem}`;

/** `dea user import <file.csv|file.json>`: many users at once, each through the one provisioning rule. */
export const userImportCommand: Command = {
  summary: `create or update users from a CSV or JSON file (fields: ${IMPORT_FIELDS.join(', ')}); nothing is written when a row is bad, unless --skip-invalid`,
  usage: '<file.csv|file.json> [--dry-run] [--group GROUP] [--disable-missing] [--skip-invalid]',
  options: {
    'dry-run': { type: 'boolean' },
    group: { type: 'string' },
    'disable-missing': { type: 'boolean' },
    'skip-invalid': { type: 'boolean' },
  },
  async run(values, positionals, context) {
    const file = argument(positionals, 0, 'file');
    noMoreArguments(positionals, 1);
    const text = (await readOperatorFile(file)).toString('utf8');
    let rows;
    try {
      rows = importBatches(file, text);
    } catch (error) {
      if (error instanceof ImportFileError) throw new CliFailure(`${file}: ${error.message}`);
      throw error;
    }
    const options = {
      dryRun: values['dry-run'] === true,
      defaultGroup: optionText(values, 'group'),
      disableMissing: values['disable-missing'] === true,
      skipInvalid: values['skip-invalid'] === true,
    };
    const { store } = await context.open();
    const started = context.now();
    const userImport = new UserImport(
      store,
      (await context.domain()).provisioning,
      context.config.provisioning.batchSize,
    );
    let report;
    try {
      report = await userImport.run(rows, options, (done, total) =>
        context.err(`… ${done} of ${total} users ${options.dryRun ? 'checked' : 'imported'}`),
      );
    } catch (error) {
      if (error instanceof InvalidField) throw new UsageError(error.message);
      // The CSV is read as it is imported: nothing is written before all of it was read.
      if (error instanceof ImportFileError) throw new CliFailure(`${file}: ${error.message}`);
      throw error;
    }
    const { created, updated, unchanged, disabled, invalid, failed, warnings } = report;
    for (const problem of invalid)
      context.out(`${options.skipInvalid ? 'skipped' : 'invalid'} ${rowLine(problem)}`);
    for (const problem of failed) context.out(`failed  ${rowLine(problem)}`);
    for (const problem of warnings) context.out(`warning ${rowLine(problem)}`);
    if (invalid.length > 0 && !options.skipInvalid) {
      context.out(
        `Nothing imported: ${invalid.length} of ${report.rows} rows are invalid. Correct them, or import the others with --skip-invalid.`,
      );
      return 1;
    }
    const counts = `${created} created, ${updated} updated, ${disabled} disabled, ${unchanged} unchanged, ${invalid.length} skipped, ${failed.length} failed`;
    if (options.dryRun) {
      context.out(`Dry run of ${file}, nothing written: would be ${counts}.`);
    } else {
      await store.audit.append(
        {
          event: 'users.imported',
          actor: IMPORT_ACTOR,
          details: {
            file: basename(file),
            created,
            updated,
            disabled,
            unchanged,
            skipped: invalid.length,
            failed: failed.length,
          },
        },
        context.now(),
      );
      context.out(`Imported ${file}: ${counts} (${((context.now() - started) / 1000).toFixed(1)} s).`);
    }
    return invalid.length + failed.length > 0 ? 1 : 0;
  },
};
