import {
  POLICY_CATEGORY_SELF_SERVICE,
  XSRF_COOKIE_NAME,
  XSRF_HEADER_NAME,
  type ChannelKey,
  usernameOrThrow,
} from '@dea/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../app.js';
import { API, bodies } from './api-bodies.js';
import { startServices } from '../bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import { newId, randomToken } from '../crypto/ids.js';
import { hashPassword } from '../crypto/password-hash.js';
import type { Services } from '../http/types.js';
import { SESSION_COOKIE } from '../http/cookies.js';
import { openTestStore, type StoreKind, type TestStore } from './stores.js';

/** Cheap password hashing keeps tests fast; production uses the configured cost. */
export const TEST_PASSWORD_HASH_COST = 10;

export interface TestClock {
  now: () => number;
  advance(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 10, 21, 9, 0, 0)): TestClock {
  let current = start;
  return { now: () => current, advance: (ms) => (current += ms) };
}

export interface SignedIn {
  userId: string;
  sessionId: string;
  xsrfToken: string;
  /** Headers of a signed-in call: session cookie, token cookie and token header. */
  headers: Record<string, string>;
}

export interface TestUser {
  id: string;
  username: string;
  password: string;
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  clock: TestClock;
  testStore: TestStore;
  /** A user in a group whose Self Service policy has these options. */
  createUser(options?: {
    /** The name, canonical (RFC 8265); a random `user-…` without it. */
    username?: string;
    policy?: Record<string, unknown>;
    channels?: Partial<Record<ChannelKey, string>>;
    locale?: string;
  }): Promise<TestUser>;
  signIn(user: TestUser): Promise<SignedIn>;
  /** Signs the user in and asks the page's call for a code on screen; answers the code. */
  codeOnScreen(user: TestUser): Promise<string>;
  /** `dea` run in-process on this app's store and secret, with these settings besides. */
  dea(
    argv: string[],
    settings?: Record<string, string>,
    stdin?: string,
  ): Promise<{ code: number; out: string; err: string }>;
  call(
    url: string,
    body: unknown,
    signedIn?: SignedIn,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export function testConfig(
  overrides: Record<string, string> = {},
  dataDir?: string,
  databaseUrl?: string,
): Config {
  return loadConfig({
    DEA_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    DEA_SECRET: Buffer.alloc(32, 7).toString('base64'),
    DEA_DEMO: 'false',
    DEA_CATALOG_CACHE_SECONDS: '0',
    DEA_WEB_DIR: '/nonexistent',
    DEA_SIGNIN_SLOWDOWN_MS: '0',
    // A store that cannot be reached fails the start at once (wait-for-store.test.ts waits).
    DEA_DB_START_WAIT_SECONDS: '0',
    // Notices arrive in the background and would add to every outbox a test counts; the tests
    // of notices switch them on. Retries wait milliseconds, not seconds.
    DEA_NOTIFY_OTHER_CHANNELS: 'false',
    DEA_DELIVERY_BACKOFF_MS: '5',
    ...(dataDir !== undefined && { DEA_DATA_DIR: dataDir }),
    ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
    ...overrides,
  });
}

function cookieValue(response: LightMyRequestResponse, name: string): string {
  const cookie = response.cookies.find((candidate) => candidate.name === name);
  if (cookie === undefined) throw new Error(`no ${name} cookie in the answer`);
  return cookie.value;
}

/** An app on a fresh store of that kind, with a controllable clock; built like production. */
export async function createTestApp(
  kind: StoreKind,
  settings: Record<string, string> = {},
): Promise<TestApp> {
  const testStore = await openTestStore(kind);
  await testStore.store.close();
  const clock = testClock();
  const config = testConfig(settings, testStore.dataDir, testStore.databaseUrl);
  const { services } = await startServices(config, clock.now);
  const app = await buildApp({ services });
  const passwordHash = await hashPassword('correct horse', TEST_PASSWORD_HASH_COST);

  const testApp: TestApp = {
    app,
    services,
    clock,
    testStore,
    async createUser(options = {}) {
      const now = clock.now();
      // Canonical from the start (RFC 8265): what the server answers is this spelling.
      const user = {
        id: newId(now),
        username: usernameOrThrow(options.username ?? `user-${randomToken(6)}`),
        password: 'correct horse',
      };
      await services.store.users.create({
        id: user.id,
        username: user.username,
        passwordHash,
        fullName: `Test ${user.username}`,
        locale: options.locale ?? 'en',
        createdAt: now,
      });
      const groupId = newId(now);
      await services.store.groups.create({ id: groupId, name: `group-${user.username}`, priority: 0 });
      await services.store.groups.setPolicy(
        groupId,
        POLICY_CATEGORY_SELF_SERVICE,
        options.policy ?? { enableECode: true, emergencyCodeDelivery: 'Display' },
      );
      await services.store.groups.addMember(groupId, user.id);
      for (const [key, address] of Object.entries(options.channels ?? {})) {
        await services.store.channels.set({
          id: randomToken(16),
          userId: user.id,
          key: key as ChannelKey,
          address,
          createdAt: now,
        });
      }
      return user;
    },
    async signIn(user) {
      const response = await app.inject({
        method: 'POST',
        url: '/login/api/session',
        payload: { username: user.username, password: user.password },
      });
      if (response.json<{ error: number }>().error !== 0) throw new Error(`sign-in failed: ${response.body}`);
      const sessionId = cookieValue(response, SESSION_COOKIE);
      const xsrfToken = cookieValue(response, XSRF_COOKIE_NAME);
      return {
        userId: user.id,
        sessionId,
        xsrfToken,
        headers: {
          cookie: `${SESSION_COOKIE}=${sessionId}; ${XSRF_COOKIE_NAME}=${xsrfToken}`,
          [XSRF_HEADER_NAME]: xsrfToken,
        },
      };
    },
    async codeOnScreen(user) {
      const response = await testApp.call(
        `${API}/tempPass/create`,
        bodies.create(user.id),
        await testApp.signIn(user),
      );
      const code = response.json<{ result: { rows: { password: string }[] } | null }>().result?.rows[0]
        ?.password;
      if (code === undefined) throw new Error(`no code on screen: ${response.body}`);
      return code;
    },
    async dea(argv, settings = {}, stdin = '') {
      const out: string[] = [];
      const err: string[] = [];
      // The CLI's modules are imported by the first test that runs a command.
      const { runCli } = await import('../cli/run.js');
      const code = await runCli(argv, {
        env: {
          DEA_SECRET: config.secret,
          DEA_DATA_DIR: testStore.dataDir,
          DATABASE_URL: testStore.databaseUrl,
          DEA_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
          ...settings,
        },
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        readStdin: () => Promise.resolve(stdin),
        // The app's clock: what dea writes (codes taken back, audit times) is on the same time line.
        now: clock.now,
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
    call(url, body, signedIn, headers = {}) {
      return app.inject({
        method: 'POST',
        url,
        headers: { ...signedIn?.headers, ...headers },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    },
    async close() {
      await app.close();
      await services.store.close();
      await testStore.dispose().catch(() => undefined);
    },
  };
  return testApp;
}
