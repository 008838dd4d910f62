import { canonicalUsername, CHANNEL_KEYS, type ChannelKey } from '@dea/contract';
import type { SourcedUser, UserProvisioning } from '../domain/provision-user.js';
import {
  InvalidField,
  validAddress,
  validFullName,
  validLocale,
  validTimeZone,
  validUsername,
} from '../domain/user-fields.js';
import type { Store, User } from '../store/store.js';
import type { ImportRow } from './import-file.js';

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
}

/** The actor of every change an import makes, in the audit log. */
export const IMPORT_ACTOR = 'cli:import';

/** One user per row of an import file: created, updated or left alone, through the one provisioning rule. */
export class UserImport {
  constructor(
    private readonly store: Store,
    private readonly provisioning: UserProvisioning,
    /** Users written per store transaction (DEA_PROVISION_BATCH_SIZE). */
    private readonly batchSize = 200,
  ) {}

  async run(
    rows: readonly ImportRow[],
    options: ImportOptions,
    progress: (done: number, total: number) => void = () => {},
  ): Promise<ImportReport> {
    const report: ImportReport = {
      written: false,
      created: 0,
      updated: 0,
      unchanged: 0,
      disabled: 0,
      invalid: [],
      failed: [],
      warnings: [],
    };
    const { valid, invalid } = await this.validate(rows, options);
    report.invalid = invalid;
    if (invalid.length > 0 && !options.skipInvalid) return report;

    // One transaction per batch (provisionBatch), each user audited as before.
    for (let at = 0; at < valid.length; at += this.batchSize) {
      const batch = valid.slice(at, at + this.batchSize);
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
      const done = Math.min(at + this.batchSize, valid.length);
      if (Math.floor(done / 500) > Math.floor(at / 500)) progress(done, valid.length);
    }
    if (options.disableMissing) {
      // A user on a bad row is listed, not missing.
      const listed = new Set(rows.map((row) => canonicalUsername(row.fields.username ?? '')));
      for (const user of await this.store.users.listOfSource('import')) {
        if (listed.has(user.username)) continue;
        if (await this.provisioning.disableMissing(user, IMPORT_ACTOR, { dryRun: options.dryRun }))
          report.disabled += 1;
      }
    }
    report.written = !options.dryRun;
    return report;
  }

  /** Every row checked before anything is written: the same rules as the CLI's. */
  private async validate(
    rows: readonly ImportRow[],
    options: ImportOptions,
  ): Promise<{ valid: { line: number; user: SourcedUser }[]; invalid: RowProblem[] }> {
    const users = new Map<string, User>((await this.store.users.list()).map((user) => [user.username, user]));
    const groups = new Set((await this.store.groups.list()).map((group) => group.name));
    const fileHasGroups = options.defaultGroup !== undefined || rows.some((row) => 'group' in row.fields);
    const managedGroups = fileHasGroups
      ? [
          ...new Set(
            [options.defaultGroup, ...rows.map((row) => row.fields.group)].filter(
              (name): name is string => typeof name === 'string' && groups.has(name),
            ),
          ),
        ]
      : [];
    if (options.defaultGroup !== undefined && !groups.has(options.defaultGroup))
      throw new InvalidField(`--group: no group named "${options.defaultGroup}" (dea group add)`);

    const firstLineOf = new Map<string, number>();
    const valid: { line: number; user: SourcedUser }[] = [];
    const invalid: RowProblem[] = [];
    for (const row of rows) {
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
      const username = typed === undefined ? undefined : check(() => validUsername(typed));
      if (typed === undefined) {
        problems.push('username is empty');
      } else if (username !== undefined) {
        const earlier = firstLineOf.get(username);
        if (earlier !== undefined) problems.push(`the user name ${username} is also on line ${earlier}`);
        else firstLineOf.set(username, line);
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
        invalid.push({ line, username: typed, problem: problems.join('; ') });
        continue;
      }
      valid.push({
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
    return { valid, invalid };
  }
}
