import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import type { SecretKeys } from '../crypto/secret-keys.js';
import type { Store } from '../store/store.js';

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command may use: the configuration, output, and the store opened on first use. */
export interface CliContext {
  config: Config;
  out(line: string): void;
  err(line: string): void;
  /** The store and keys of the server this configuration describes (opened once, closed after the command). */
  open(): Promise<{ store: Store; keys: SecretKeys }>;
}

export interface Command {
  summary: string;
  /** The arguments after the command name, for the help text. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Answers the exit code. */
  run(values: OptionValues, positionals: string[], context: CliContext): Promise<number>;
}

/** One `dea <group> <command>` family (outbox, users, channels, ...), in its own module. */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Readonly<Record<string, Command>>;
}

/** Thrown for a wrong invocation: the message and the usage are shown, exit code 2. */
export class UsageError extends Error {}

export function positiveInteger(value: OptionValues[string], name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new UsageError(`--${name} must be a positive whole number`);
  return number;
}
