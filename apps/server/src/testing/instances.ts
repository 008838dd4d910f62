import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import type { Services } from '../http/types.js';
import {
  POLICY_CATEGORY_SELF_SERVICE,
  XSRF_COOKIE_NAME,
  XSRF_HEADER_NAME,
  usernameOrThrow,
} from '@dea/contract';
import { newId } from '../crypto/ids.js';
import { issueCode } from '../domain/codes/codes.js';
import { resolvePolicy } from '../domain/policies/policy.js';
import { hashPassword } from '../crypto/password-hash.js';
import { SESSION_COOKIE } from '../http/cookies.js';
import type { Store } from '../store/store.js';
import { createTestDatabase } from './postgres-cluster.js';
import { TEST_PASSWORD_HASH_COST, testConfig } from './test-app.js';

export interface Instance {
  app: FastifyInstance;
  services: Services;
  /** http://127.0.0.1:<port> */
  base: string;
  dataDir: string;
}

export interface Instances {
  a: Instance;
  b: Instance;
  close(): Promise<void>;
}

export async function startInstance(
  databaseUrl: string,
  settings: Record<string, string>,
): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dea-instance-'));
  // An instance that does not start (a test of what refuses to start) leaves no folder behind.
  let services: Services;
  try {
    ({ services } = await startServices(testConfig(settings, dataDir, databaseUrl)));
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const app = await buildApp({ services });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { app, services, base: `http://127.0.0.1:${port}`, dataDir };
}

/**
 * Two server instances as two processes behind a load balancer would be: one fresh PostgreSQL
 * database, one secret, each listening on its own port and called over real HTTP.
 */
export async function startTwoInstances(settings: Record<string, string> = {}): Promise<Instances> {
  const database = await createTestDatabase(inject('postgresUrl'));
  const a = await startInstance(database.url, settings);
  const b = await startInstance(database.url, settings);
  return {
    a,
    b,
    async close() {
      for (const instance of [a, b]) {
        await instance.app.close();
        await instance.services.store.close();
        rmSync(instance.dataDir, { recursive: true, force: true });
      }
      await database.drop();
    },
  };
}

/** A user with password "pw" in a group of its own whose policy shows codes on screen. */
export async function createUserWithCodes(
  store: Store,
  maxUnusedCodes: number,
  fullName = 'Two Instances',
): Promise<{ id: string; username: string }> {
  const now = Date.now();
  const user = { id: newId(now), username: usernameOrThrow(`user-${newId(now)}`) };
  await store.users.create({
    ...user,
    passwordHash: await hashPassword('pw', TEST_PASSWORD_HASH_COST),
    fullName,
    locale: 'en',
    createdAt: now,
  });
  const groupId = newId(now);
  await store.groups.create({ id: groupId, name: `group-${user.username}`, priority: 0 });
  await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
    maxUnusedCodes,
  });
  await store.groups.addMember(groupId, user.id);
  return user;
}

/**
 * A user (`<prefix>-<id>`, no password) in a group of its own whose policy shows codes on screen,
 * and one code issued to them by the domain, as the page's call would.
 */
export async function userWithIssuedCode(
  instance: Instance,
  prefix: string,
): Promise<{ userId: string; username: string; code: string }> {
  const { store, keys, config } = instance.services;
  const now = Date.now();
  const userId = newId(now);
  const username = `${prefix}-${userId}`;
  await store.users.create({
    id: userId,
    username: usernameOrThrow(username),
    passwordHash: 'x',
    fullName: prefix,
    locale: 'en',
    createdAt: now,
  });
  const groupId = newId(now);
  await store.groups.create({ id: groupId, name: `group-${userId}`, priority: 0 });
  await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, {
    enableECode: true,
    emergencyCodeDelivery: 'Display',
  });
  await store.groups.addMember(groupId, userId);
  const policy = resolvePolicy(
    await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_SELF_SERVICE),
    config.codeDefaults,
  );
  const { code } = await issueCode(store, keys.codeHash, {
    userId,
    policy,
    channelType: null,
    clientAddress: null,
    now,
  });
  return { userId, username, code };
}

/** Signs in over the instance's HTTP (password "pw"); answers the headers of the page's calls. */
export async function signInOver(instance: Instance, username: string): Promise<Record<string, string>> {
  const response = await fetch(`${instance.base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'pw' }),
  });
  const answer = (await response.json()) as { error: number };
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const value = (name: string) =>
    cookies.find((cookie) => cookie.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
  if (answer.error !== 0 || value(SESSION_COOKIE) === '') {
    throw new Error(`sign-in of ${username} failed: ${JSON.stringify(answer)}`);
  }
  return {
    'content-type': 'application/json',
    cookie: `${SESSION_COOKIE}=${value(SESSION_COOKIE)}; ${XSRF_COOKIE_NAME}=${value(XSRF_COOKIE_NAME)}`,
    [XSRF_HEADER_NAME]: value(XSRF_COOKIE_NAME),
  };
}
