import { canonicalUsername, CHANNEL_KEYS, type ChannelKey, type Username } from '@dea/contract';
import type { SourcedUser, UserProvisioning } from '../domain/identity/provision-user.js';
import {
  InvalidField,
  validAddress,
  validFullName,
  validLocale,
  validTimeZone,
  validUsername,
} from '../domain/identity/user-fields.js';
import type { Store, User } from '../store/store.js';
import type { ImportBatches, ImportRow } from './import-file.js';

export interface ImportOptions {
  /** Say what would happen; write nothing. */
  dryRun: boolean;
  /** The group of every row that names none. */
  defaultGroup?: string | undefined;
  /** Disable the imported users that the file no longer lists (their sessions end). */
  disableMissing: boolean;
  /** Import the good rows when some are bad, instead of nothing. */
  skipInvalid: boolean;
}

export interface RowProblem {
  line: number;
  username?: string | undefined;
  problem: string;
}

export interface ImportReport {
  /** False when bad rows stopped the import (nothing written), or in a dry run. */
  written: boolean;
  created: number;
  updated: number;
  unchanged: number;
  disabled: number;
  /** Bad rows: the reason nothing was written, or (with skipInvalid) the rows left out. */
  invalid: RowProblem[];
  /** Good rows the store refused while writing (a name taken meanwhile). */
  failed: RowProblem[];
  warnings: RowProblem[];
  /** The rows of the file. */
  rows: number;
}

/** The actor of every change an import makes, in the audit log. */
export const IMPORT_ACTOR = 'cli:import';

/** What the first reading of the file found, before anything is written. */
interface Survey {
  /** The line of each name's first row: a later row of the same name is invalid. */
  firstLineOf: Map<string, number>;
  /** Every name on a row, valid or not (a user on a bad row is listed, not missing). */
  listed: Set<string | undefined>;
  /** The groups the file names (its rows and the default group). */
  named: Set<string>;
  fileHasGroups: boolean;
  invalid: RowProblem[];
  valid: number;
  rows: number;
}

/** A row as checked: the user it makes, or what is wrong with it. */
type CheckedRow = { line: number; user: SourcedUser } | { line: number; invalid: RowProblem };

/**
 * One user per row of an import file: created, updated or left alone, through the one provisioning
 * rule. The file is read twice in batches (`DEA_PROVISION_BATCH_SIZE` rows): first every row is
 * checked and nothing is written when one is bad (unless skipInvalid), then each batch is checked
 * again against the store as it is and written in one transaction. Only a batch's rows and users
 * are held at a time.
 */
export class UserImport {
  constructor(
    private readonly store: Store,
    private readonly provisioning: UserProvisioning,
    /** Users written per store transaction (DEA_PROVISION_BATCH_SIZE), and rows read at a time. */
    private readonly batchSize = 200,
  ) {}

  async run(
    file: ImportBatches,
    options: ImportOptions,
    progress: (done: number, total: number) => void = () => {},
  ): Promise<ImportReport> {
    const groups = new Set((await this.store.groups.list()).map((group) => group.name));
    const survey = await this.survey(file, options, groups);
    if (options.defaultGroup !== undefined && !groups.has(options.defaultGroup))
      throw new InvalidField(`--group: no group named "${options.defaultGroup}" (dea group add)`);
    const report: ImportReport = {
      written: false,
      created: 0,
      updated: 0,
      unchanged: 0,
      disabled: 0,
      invalid: survey.invalid,
      failed: [],
      warnings: [],
      rows: survey.rows,
    };
    if (survey.invalid.length > 0 && !options.skipInvalid) return report;

    const managedGroups = survey.fileHasGroups ? [...survey.named].filter((name) => groups.has(name)) : [];
    const firstOnly = (username: string, line: number) =>
      survey.firstLineOf.get(username) === line ? undefined : survey.firstLineOf.get(username);
    const invalidLines = new Set(survey.invalid.map((problem) => problem.line));
    let done = 0;
    for await (const rows of file(this.batchSize)) {
      const batch: { line: number; user: SourcedUser }[] = [];
      for (const checked of await this.check(rows, options, groups, managedGroups, firstOnly)) {
        if ('user' in checked) batch.push(checked);
        // Valid at the first reading: the store changed meanwhile (another writer).
        else if (!invalidLines.has(checked.line)) report.failed.push(checked.invalid);
      }
      if (batch.length === 0) continue;
      // One transaction per batch (provisionBatch), each user audited as before.
      const results = await this.provisioning.provisionBatch(
        batch.map(({ user }) => user),
        IMPORT_ACTOR,
        { dryRun: options.dryRun, adoptLocal: true },
      );
      for (const [index, result] of results.entries()) {
        const { line, user } = batch[index] as (typeof batch)[number];
        if ('refused' in result) {
          report.failed.push({ line, username: user.username, problem: result.refused.message });
          continue;
        }
        report[result.provisioned.outcome] += 1;
        for (const warning of result.provisioned.warnings)
          report.warnings.push({ line, username: user.username, problem: warning });
      }
      const before = done;
      done += batch.length;
      if (Math.floor(done / 500) > Math.floor(before / 500)) progress(done, survey.valid);
    }
    if (options.disableMissing) {
      for (const user of await this.store.users.listOfSource('import')) {
        if (survey.listed.has(user.username)) continue;
        if (await this.provisioning.disableMissing(user, IMPORT_ACTOR, { dryRun: options.dryRun }))
          report.disabled += 1;
      }
    }
    report.written = !options.dryRun;
    return report;
  }

  /** The first reading: every row checked, in the file's order, before anything is written. */
  private async survey(file: ImportBatches, options: ImportOptions, groups: Set<string>): Promise<Survey> {
    const survey: Survey = {
      firstLineOf: new Map(),
      listed: new Set(),
      named: new Set(options.defaultGroup === undefined ? [] : [options.defaultGroup]),
      fileHasGroups: options.defaultGroup !== undefined,
      invalid: [],
      valid: 0,
      rows: 0,
    };
    const firstSeen = (username: string, line: number) => {
      const earlier = survey.firstLineOf.get(username);
      if (earlier === undefined) survey.firstLineOf.set(username, line);
      return earlier;
    };
    for await (const rows of file(this.batchSize)) {
      survey.rows += rows.length;
      for (const row of rows) {
        survey.listed.add(canonicalUsername(row.fields.username ?? ''));
        if ('group' in row.fields) survey.fileHasGroups = true;
        const group = row.fields.group;
        if (typeof group === 'string') survey.named.add(group);
      }
      for (const checked of await this.check(rows, options, groups, [], firstSeen)) {
        if ('user' in checked) survey.valid += 1;
        else survey.invalid.push(checked.invalid);
      }
    }
    return survey;
  }

  /**
   * A batch of rows checked by the same rules as the CLI's, against the store's users of the
   * batch's names. `earlierLineOf` answers the line of an earlier row of the same name.
   */
  private async check(
    rows: readonly ImportRow[],
    options: ImportOptions,
    groups: Set<string>,
    managedGroups: string[],
    earlierLineOf: (username: string, line: number) => number | undefined,
  ): Promise<CheckedRow[]> {
    // Each row's name checked once: the batch's valid names are looked up together.
    const names = rows.map(({ fields }) => {
      const typed = fields.username ?? undefined;
      if (typed === undefined) return undefined;
      try {
        return validUsername(typed);
      } catch (error) {
        if (!(error instanceof InvalidField)) throw error;
        return error;
      }
    });
    const users = await this.usersNamed(names);
    const checked: CheckedRow[] = [];
    for (const [index, row] of rows.entries()) {
      const { fields, line } = row;
      const typed = fields.username ?? undefined;
      const problems = [...row.problems];
      const check = <T>(validate: () => T): T | undefined => {
        try {
          return validate();
        } catch (error) {
          if (!(error instanceof InvalidField)) throw error;
          problems.push(error.message);
          return undefined;
        }
      };
      // Every spelling of a name is the one name (RFC 8265): `Alice` and `alice` are one user.
      const named = names[index];
      if (named instanceof InvalidField) problems.push(named.message);
      const username = named instanceof InvalidField ? undefined : named;
      if (typed === undefined) {
        problems.push('username is empty');
      } else if (username !== undefined) {
        const earlier = earlierLineOf(username, line);
        if (earlier !== undefined) problems.push(`the user name ${username} is also on line ${earlier}`);
      }
      const existing = username === undefined ? undefined : users.get(username);
      if (existing !== undefined && existing.source !== 'import' && existing.source !== 'local')
        problems.push(`${username} comes from ${existing.source}; the import cannot change that user`);
      const fullNameText = fields.fullName ?? undefined;
      const fullName =
        fullNameText === undefined
          ? existing?.fullName
          : check(() => validFullName(fullNameText, 'fullName'));
      if (fullNameText === undefined && existing === undefined)
        problems.push('fullName is needed for a new user');
      const localeText = fields.locale ?? undefined;
      const locale = localeText === undefined ? undefined : check(() => validLocale(localeText));
      const timeZoneText = fields.timeZone ?? undefined;
      const timeZone =
        timeZoneText === undefined ? undefined : check(() => validTimeZone(timeZoneText, 'timeZone'));
      const group = fields.group ?? options.defaultGroup;
      if (group !== undefined && !groups.has(group))
        problems.push(`no group named "${group}" (dea group add ${JSON.stringify(group)})`);
      const channels: Partial<Record<ChannelKey, string | null>> = {};
      for (const key of CHANNEL_KEYS) {
        const text = fields[key];
        if (text === undefined) continue;
        channels[key] = text === null ? null : (check(() => validAddress(key, text)) ?? null);
      }
      if (problems.length > 0 || username === undefined || fullName === undefined) {
        checked.push({ line, invalid: { line, username: typed, problem: problems.join('; ') } });
        continue;
      }
      checked.push({
        line,
        user: {
          source: 'import',
          externalId: username,
          username,
          fullName,
          locale,
          timeZone,
          disabled: false,
          channels,
          groups: { managed: managedGroups, memberOf: group === undefined ? [] : [group] },
        },
      });
    }
    return checked;
  }

  /** The store's users of these names (one statement on PostgreSQL, gathered). */
  private async usersNamed(
    names: readonly (Username | InvalidField | undefined)[],
  ): Promise<Map<string, User>> {
    const wanted = new Set(names.filter((name) => typeof name === 'string'));
    const found = await Promise.all([...wanted].map((name) => this.store.users.findByUsername(name)));
    return new Map(found.filter((user) => user !== undefined).map((user) => [user.username, user]));
  }
}
