import { RELEASE_VERSION } from '../release-version.js';
import { RequestTurns } from '../domain/bulkheads.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfigWithFile } from '../config.js';
import {
  type DerivedKeys,
  deriveKeys,
  loadSecret,
  SECRET_KEY_FILE,
  type SecretKeys,
  secretBytesOf,
} from '../crypto/secret-keys.js';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';
import { auditStampKeyOf, sealAuditTrail } from '../domain/audit/audit-trail.js';
import { ensurePrivateFolder, OpenPrivateFileError } from '../files/private-files.js';
import { StoreError } from '../store/store-error.js';
import { checkSecretFingerprint, SECRET_FINGERPRINT_KEY } from '../store/secret-fingerprint.js';
import type { Store } from '../store/store.js';
import { composeDomain } from '../composition.js';
import { decoyPasswordHash } from '../domain/page/sign-in.js';
import { Metrics } from '../observability/metrics.js';
import type { Services } from '../services.js';

/** The command line's log of the directory and the providers: it says nothing (its answers say it). */
const SILENT = { warn: () => undefined, info: () => undefined };
import { auditCommands } from './audit-commands.js';
import { reportCommand } from './report-command.js';
import { brandingCommands } from './branding-commands.js';
import { channelCommands } from './channel-commands.js';
import { directoryCommands } from './directory-commands.js';
import { adminCommands } from './admin-commands.js';
import { type CliContext, CliFailure, type Command, type CommandGroup, UsageError } from './command.js';
import { groupCommands } from './group-commands.js';
import { migrateCommand } from './migrate-command.js';
import { messageCommands } from './message-commands.js';
import { outboxCommands } from './outbox-commands.js';
import { codeCommands, purgeCommand } from './purge-command.js';
import { secretCommands } from './secret-commands.js';
import { serviceKeyCommands } from './service-key-commands.js';
import { userCommands } from './user-commands.js';

/** Every command group; a new one is a module and a line here. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  userCommands,
  channelCommands,
  groupCommands,
  brandingCommands,
  messageCommands,
  outboxCommands,
  auditCommands,
  reportCommand,
  serviceKeyCommands,
  codeCommands,
  directoryCommands,
  adminCommands,
  purgeCommand,
  secretCommands,
  migrateCommand,
];

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** Standard input, read whole; none: a command that needs it fails. */
  readStdin?(): Promise<string>;
  /** A signal aborted on Ctrl-C; asked for only by commands that run until interrupted. */
  interrupted?(): AbortSignal;
  now?(): number;
}

const isHelp = (arg: string | undefined): boolean => arg === '--help' || arg === '-h' || arg === 'help';

/** Takes the options that come before the group (`--config <file>`); answers the rest. */
function globalOptions(argv: readonly string[]): { configFile: string | undefined; rest: string[] } {
  const rest = [...argv];
  let configFile: string | undefined;
  while (rest[0]?.startsWith('--config')) {
    const [option = ''] = rest.splice(0, 1);
    configFile = option.startsWith('--config=') ? option.slice('--config='.length) : rest.splice(0, 1)[0];
    if (configFile === undefined || configFile === '' || (option !== '--config' && !option.includes('=')))
      throw new UsageError('--config needs a file: dea --config <file> <group> <command>');
  }
  return { configFile, rest };
}

function commandLine(groupName: string, commandName: string, command: Command): string {
  return ['dea', groupName, commandName, command.usage].filter((part) => part !== '').join(' ');
}

function groupHelp(group: CommandGroup): string {
  if (group.alone)
    return `${group.name}: ${group.summary}\n  ${`dea ${group.name} ${group.alone.usage}`.trimEnd()}`;
  const lines = [`${group.name}: ${group.summary}`];
  for (const [name, command] of Object.entries(group.commands)) {
    lines.push(`  ${commandLine(group.name, name, command)}`, `      ${command.summary}`);
  }
  return lines.join('\n');
}

function help(groups: readonly CommandGroup[]): string {
  const lines = [
    'Usage: dea <group> <command> [options]',
    `       dea --version (this is ${RELEASE_VERSION})`,
    '',
    'Settings come from the same environment (and DEA_CONFIG_FILE) as the server;',
    '--config <file> before the group names a config file instead.',
    '',
  ];
  for (const group of groups) lines.push(groupHelp(group));
  return lines.join('\n');
}

/**
 * The operator's command-line tool. It opens the store the server's configuration names and
 * unseals with the server's secret; it never creates a store or a secret, so a wrong
 * DEA_DATA_DIR is reported rather than answered from an empty new store.
 */
export async function runCli(argv: readonly string[], io: CliIo, groups = COMMAND_GROUPS): Promise<number> {
  let configFile: string | undefined;
  let args: string[];
  try {
    ({ configFile, rest: args } = globalOptions(argv));
  } catch (error) {
    io.err((error as Error).message);
    return 2;
  }
  const [groupName, commandName, ...rest] = args;
  if (groupName === '--version' || groupName === '-V') {
    io.out(`dea ${RELEASE_VERSION}`);
    return 0;
  }
  if (groupName === undefined || isHelp(groupName)) {
    io.out(help(groups));
    return groupName === undefined ? 2 : 0;
  }
  const group = groups.find((candidate) => candidate.name === groupName);
  if (group === undefined) {
    io.err(`Unknown command: dea ${groupName} (groups: ${groups.map((each) => each.name).join(', ')})`);
    return 2;
  }
  if (group.alone === undefined && (commandName === undefined || isHelp(commandName))) {
    io.out(groupHelp(group));
    return commandName === undefined ? 2 : 0;
  }
  if (group.alone !== undefined && commandName !== undefined) rest.unshift(commandName);
  const command =
    group.alone ??
    (commandName !== undefined && Object.hasOwn(group.commands, commandName)
      ? group.commands[commandName]
      : undefined);
  if (command === undefined) {
    io.err(
      `Unknown command: dea ${groupName} ${commandName} (commands: ${Object.keys(group.commands).join(', ')})`,
    );
    return 2;
  }
  const shownName = group.alone ? '' : (commandName ?? '');
  if (rest.some((arg) => arg === '--help' || arg === '-h')) {
    io.out(`Usage: ${commandLine(group.name, shownName, command)}\n  ${command.summary}`);
    return 0;
  }
  let config;
  try {
    config = loadConfigWithFile(io.env, configFile);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  }
  for (const notice of config.settingsFiles.notices) io.err(`dea: ${notice}`);
  let opened: { store: Store; keys: SecretKeys; auditKeys: SecretKeys } | undefined;
  let domain: Services | undefined;
  let schemaAsIs = false;
  const context: CliContext = {
    config,
    out: (line) => io.out(line),
    err: (line) => io.err(line),
    async open(options = {}) {
      if (opened) return opened;
      schemaAsIs = options.schema === 'as-is';
      const noEmbeddedStore =
        config.databaseUrl === undefined && !existsSync(join(config.dataDir, EMBEDDED_STORE_FILE));
      if (noEmbeddedStore && options.create === true) {
        // dea migrate makes a new store: the folder (mode 0700) and, as the server's first start
        // would, the secret key file when no DEA_SECRET is set.
        ensurePrivateFolder(config.dataDir);
        if (config.secret === '') loadSecret('', config.dataDir);
      } else if (noEmbeddedStore) {
        throw new UsageError(
          `no embedded store in ${config.dataDir} (set DEA_DATA_DIR or DATABASE_URL)`,
          false,
        );
      }
      if (config.secret === '' && !existsSync(join(config.dataDir, SECRET_KEY_FILE))) {
        throw new UsageError(`no server secret: set DEA_SECRET or DEA_DATA_DIR as for the server`, false);
      }
      const keys = deriveKeys(
        loadSecret(config.secret, config.dataDir).secret,
        secretBytesOf(config.secretPrevious),
      );
      const storeWith = (stampKeys: DerivedKeys) =>
        openStore({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          poolSize: 2,
          timeouts: config.dbTimeouts,
          preparedStatements: { enabled: config.dbPreparedStatements },
          schema: options.schema ?? 'require-current',
          auditStampKey: auditStampKeyOf(stampKeys),
        });
      let store = await storeWith(keys);
      try {
        // dea migrate may find no tables at all; it needs no keys either.
        if (options.schema !== 'as-is') await checkSecretFingerprint(store, keys, false);
      } catch (error) {
        await store.close();
        throw error;
      }
      // A rotation no server has recorded yet: the store's secret is still DEA_SECRET_PREVIOUS, and
      // what dea writes to the audit trail is stamped and sealed under it, so that the servers
      // still running with it alone take it (ADR 0032); everything else uses DEA_SECRET.
      let auditKeys: SecretKeys = keys;
      if (
        options.schema !== 'as-is' &&
        keys.previous !== undefined &&
        (await store.meta.get(SECRET_FINGERPRINT_KEY)) === keys.previous.fingerprint
      ) {
        await store.close();
        store = await storeWith(keys.previous);
        const { previous, ...current } = keys;
        auditKeys = { ...previous, previous: current };
      }
      opened = { store, keys, auditKeys };
      return opened;
    },
    async domain() {
      if (domain !== undefined) return domain;
      const { store, keys } = await context.open();
      let decoy: Promise<string> | undefined;
      domain = composeDomain({
        config,
        store,
        keys,
        now: () => context.now(),
        log: SILENT,
        metrics: new Metrics(),
        // dea answers no requests: its work never waits for a turn.
        requestTurns: new RequestTurns(),
        // The command line exports nothing (the server seals what it writes) and signs no one in.
        auditExport: undefined,
        decoyPasswordHash: () => (decoy ??= decoyPasswordHash(store, config.passwordHashCost)),
      });
      return domain;
    },
    readStdin: () =>
      io.readStdin ? io.readStdin() : Promise.reject(new CliFailure('standard input is not available')),
    interrupted: () => io.interrupted?.() ?? new AbortController().signal,
    now: () => io.now?.() ?? Date.now(),
  };
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: command.options,
      allowPositionals: true,
    });
    return await command.run(values, positionals, context);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      // One line: what is wrong, then how the command is called.
      const message = (error as Error).message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
      const usage = !(error instanceof UsageError) || error.showUsage;
      io.err(usage ? `${message}. Usage: ${commandLine(group.name, shownName, command)}` : message);
      return 2;
    }
    if (error instanceof CliFailure || error instanceof StoreError || error instanceof OpenPrivateFileError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  } finally {
    // What the command wrote to the audit log is chained before it ends (a server would chain it
    // within a second too); a failure here leaves it for the next sealer.
    if (opened !== undefined && !schemaAsIs)
      await sealAuditTrail(opened.store, opened.auditKeys, context.now()).catch(() => undefined);
    await opened?.store.close();
  }
}
