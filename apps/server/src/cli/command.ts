import { readFile } from 'node:fs/promises';
import { InvalidField } from '../domain/identity/user-fields.js';
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import type { SecretKeys } from '../crypto/secret-keys.js';
import type { Services } from '../services.js';
import type { Group, Store, User } from '../store/store.js';
import { RuleError } from '../domain/rule-error.js';
import { userNamed } from '../domain/identity/user-names.js';
import { OpenPrivateFileError, readPrivateFile } from '../files/private-files.js';

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command may use: the configuration, output, and the store opened on first use. */
export interface CliContext {
  config: Config;
  out(line: string): void;
  err(line: string): void;
  /**
   * The store and keys of the server this configuration describes (opened once, closed after the
   * command). The schema must be this version's and is never changed, unless `schema: 'as-is'`
   * (only `dea migrate` asks for that).
   */
  open(options?: {
    schema?: 'require-current' | 'as-is';
    /** Makes a new embedded store (and its secret key file, when DEA_SECRET is empty) where none is. */
    create?: boolean;
  }): Promise<{ store: Store; keys: SecretKeys }>;
  /**
   * The domain's use cases over that store (opened first), built by the one composition root
   * (composition.ts) as the server's are: a command changes people, groups, channels and console
   * accounts through these, never by writing the store.
   */
  domain(): Promise<Services>;
  /** Everything on standard input (passwords are read from there, never from the arguments). */
  readStdin(): Promise<string>;
  /** Aborted when the operator interrupts (Ctrl-C); for commands that run until then. */
  interrupted(): AbortSignal;
  now(): number;
}

export interface Command {
  summary: string;
  /** The arguments after the command name, for the help text. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Answers the exit code. */
  run(values: OptionValues, positionals: string[], context: CliContext): Promise<number>;
}

/**
 * One `dea <group> <command>` family (outbox, users, channels, ...), in its own module; or, with
 * `alone`, one command called by the group's name alone (`dea migrate`).
 */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Readonly<Record<string, Command>>;
  alone?: Command;
}

/** Thrown for a wrong invocation: the message and the usage are shown, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** False for a wrong setting rather than a wrong command line. */
    readonly showUsage = true,
  ) {
    super(message);
  }
}

export function positiveInteger(value: OptionValues[string], name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 1)
    throw new UsageError(`--${name} must be a positive whole number`);
  return number;
}

/** A file the operator names, or a failure naming it and why it cannot be read (ENOENT, EACCES). */
export async function readOperatorFile(path: string, what = ''): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new CliFailure(`cannot read ${what}${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

/**
 * A file the operator names that holds a secret (a password): refused, naming the file and
 * chmod 600, when its group or others may read it; otherwise as readOperatorFile.
 */
export async function readOperatorSecretFile(path: string, what = ''): Promise<Buffer> {
  try {
    return await readPrivateFile(path, what);
  } catch (error) {
    if (error instanceof OpenPrivateFileError) throw new CliFailure(error.message);
    throw new CliFailure(`cannot read ${what}${path} (${(error as NodeJS.ErrnoException).code})`);
  }
}

/** A value that breaks a rule of users' fields is a wrong invocation. */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidField) throw new UsageError(error.message);
    throw error;
  }
}

/** A valid invocation that cannot be carried out (no such user, name taken): exit code 1. */
export class CliFailure extends Error {}

/** The positional argument at `index`, required. */
export function argument(positionals: readonly string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined || value.trim() === '') throw new UsageError(`missing <${name}>`);
  return value;
}

/** Refuses positional arguments beyond the `count` the command takes. */
export function noMoreArguments(positionals: readonly string[], count: number): void {
  const extra = positionals[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
}

/** A string option's value, when given. */
export function optionText(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredOption(values: OptionValues, name: string): string {
  const value = optionText(values, name);
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export async function findGroup(store: Store, name: string): Promise<Group> {
  const group = await store.groups.findByName(name);
  if (group === undefined) throw new CliFailure(`no group named "${name}"`);
  return group;
}

export async function findUser(store: Store, username: string): Promise<User> {
  const user = await userNamed(store, username);
  if (user === undefined) throw new CliFailure(`no user named "${username}"`);
  return user;
}

export const isoTime = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/**
 * A refusal of the product's rules as the CLI reports it: bad input is a usage error (exit 2) unless
 * `usage` is false; a conflict or a missing thing is a failure (exit 1).
 */
export function asCliFailure(error: unknown, usage = true): never {
  if (error instanceof RuleError)
    throw usage && error.kind === 'invalid' ? new UsageError(error.message) : new CliFailure(error.message);
  throw error;
}
