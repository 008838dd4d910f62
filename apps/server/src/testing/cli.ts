import { usernameOrThrow } from '@dea/contract';
import { expect } from 'vitest';
import { newId } from '../crypto/ids.js';
import { hashPassword } from '../crypto/password-hash.js';
import { runCli } from '../cli/run.js';
import { ensureBuiltInContent } from '../seed/built-in-content.js';
import type { Store } from '../store/store.js';
import { openTestStore, type StoreKind, type TestStore } from './stores.js';

export const CLI_SECRET = Buffer.alloc(32, 9).toString('base64');

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export interface CliRunOptions {
  stdin?: string;
  now?: number;
  interrupted?: AbortSignal;
  /** Called with each line written to standard output. */
  onOut?: (line: string) => void;
  env?: Record<string, string | undefined>;
}

export interface CliFixture {
  testStore: TestStore;
  store: Store;
  env: Record<string, string | undefined>;
  run(argv: string[], options?: CliRunOptions): Promise<CliRun>;
  /** A user made directly in the store (cheap password hash). */
  addUser(username: string): Promise<string>;
  dispose(): Promise<void>;
}

/** A fresh store of that kind with the built-in content, and `dea` run in-process on it. */
export async function openCliFixture(kind: StoreKind): Promise<CliFixture> {
  const testStore = await openTestStore(kind);
  await ensureBuiltInContent(testStore.store);
  const env = {
    DEA_SECRET: CLI_SECRET,
    DEA_DATA_DIR: testStore.dataDir,
    DATABASE_URL: testStore.databaseUrl,
    DEA_PASSWORD_HASH_COST: '10',
  };
  return {
    testStore,
    store: testStore.store,
    env,
    async run(argv, options = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, {
        env: { ...env, ...options.env },
        out: (line) => {
          out.push(line);
          options.onOut?.(line);
        },
        err: (line) => err.push(line),
        ...(options.stdin !== undefined && { readStdin: () => Promise.resolve(options.stdin ?? '') }),
        ...(options.now !== undefined && { now: () => options.now ?? 0 }),
        ...(options.interrupted !== undefined && { interrupted: () => options.interrupted as AbortSignal }),
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
    async addUser(username) {
      const id = newId();
      await testStore.store.users.create({
        id,
        username: usernameOrThrow(username),
        passwordHash: await hashPassword('correct horse', 10),
        fullName: `Full ${username}`,
        locale: 'en',
        createdAt: Date.now(),
      });
      return id;
    },
    dispose: () => testStore.dispose(),
  };
}

/** Everything an operator command can change, to prove a refused command changed nothing. */
export async function storeSnapshot(store: Store): Promise<unknown> {
  const users = await store.users.list();
  const groups = await store.groups.list();
  const languages = await store.catalogs.listLanguages();
  return {
    users,
    channels: await Promise.all(users.map((user) => store.channels.listOfUser(user.id))),
    groups: await Promise.all(
      groups.map(async (group) => ({
        ...group,
        members: await store.groups.listMembers(group.id),
        policies: await store.groups.listPolicies(group.id),
      })),
    ),
    branding: await store.branding.list(),
    languages,
    messages: await Promise.all(languages.map((language) => store.catalogs.messages(language.code))),
    serviceKeys: await store.serviceKeys.list(),
    audit: await store.audit.list({ limit: 100_000 }),
  };
}

export type Refusal = [argv: string[], code: number, message: string];

/** Each command is refused with its exit code and one line naming the mistake, printing nothing. */
export async function expectRefusals(cli: CliFixture, refusals: readonly Refusal[]): Promise<void> {
  for (const [argv, code, message] of refusals) {
    const result = await cli.run(argv);
    // argv in the compared value names the command when one fails.
    expect({ argv, code: result.code, out: result.out }).toEqual({ argv, code, out: '' });
    expect(result.err).toContain(message);
    expect(result.err.split('\n')).toHaveLength(1);
  }
}
