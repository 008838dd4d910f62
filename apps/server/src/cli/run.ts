import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { deriveKeys, loadSecret, SECRET_KEY_FILE } from '../crypto/secret-keys.js';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { type CliContext, type CommandGroup, UsageError } from './command.js';
import { outboxCommands } from './outbox-commands.js';

/** Every command group; a new one is a module and a line here. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [outboxCommands];

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

function help(groups: readonly CommandGroup[]): string {
  const lines = [
    'Usage: dea <group> <command> [options]',
    '',
    'Settings come from the same environment as the server.',
    '',
  ];
  for (const group of groups) {
    lines.push(`${group.name}: ${group.summary}`);
    for (const [name, command] of Object.entries(group.commands)) {
      lines.push(`  dea ${group.name} ${name} ${command.usage}`.trimEnd(), `      ${command.summary}`);
    }
  }
  return lines.join('\n');
}

/**
 * The operator's command-line tool. It opens the store the server's configuration names and
 * unseals with the server's secret; it never creates a store or a secret, so a wrong
 * DEA_DATA_DIR is reported rather than answered from an empty new store.
 */
export async function runCli(argv: readonly string[], io: CliIo, groups = COMMAND_GROUPS): Promise<number> {
  const [groupName, commandName, ...rest] = argv;
  if (groupName === undefined || groupName === 'help' || groupName === '--help' || groupName === '-h') {
    io.out(help(groups));
    return groupName === undefined ? 2 : 0;
  }
  const group = groups.find((candidate) => candidate.name === groupName);
  const command = commandName === undefined ? undefined : group?.commands[commandName];
  if (group === undefined || command === undefined) {
    io.err(`Unknown command: dea ${argv.slice(0, 2).join(' ')}`);
    io.err(help(groups));
    return 2;
  }
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  }
  let opened: { store: Store; keys: ReturnType<typeof deriveKeys> } | undefined;
  const context: CliContext = {
    config,
    out: (line) => io.out(line),
    err: (line) => io.err(line),
    async open() {
      if (opened) return opened;
      if (config.databaseUrl === undefined && !existsSync(join(config.dataDir, EMBEDDED_STORE_FILE))) {
        throw new UsageError(`no embedded store in ${config.dataDir} (set DEA_DATA_DIR or DATABASE_URL)`);
      }
      if (config.secret === '' && !existsSync(join(config.dataDir, SECRET_KEY_FILE))) {
        throw new UsageError(`no server secret: set DEA_SECRET or DEA_DATA_DIR as for the server`);
      }
      const keys = deriveKeys(loadSecret(config.secret, config.dataDir).secret);
      const store = await openStore({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        poolSize: 2,
      });
      opened = { store, keys };
      return opened;
    },
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
      io.err(`${(error as Error).message}\nUsage: dea ${group.name} ${commandName} ${command.usage}`);
      return 2;
    }
    throw error;
  } finally {
    await opened?.store.close();
  }
}
