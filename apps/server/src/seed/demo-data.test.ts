import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHANNEL_KEYS,
  XSRF_COOKIE_NAME,
  XSRF_HEADER_NAME,
  splitChannelValue,
  usernameOrThrow,
} from '@dea/contract';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../app.js';
import { startServices } from '../bootstrap.js';
import { SESSION_COOKIE } from '../http/cookies.js';
import type { Services } from '../http/types.js';
import { API, bodies } from '../testing/api-bodies.js';
import { createTestDatabase } from '../testing/postgres-cluster.js';
import { testConfig } from '../testing/test-app.js';
import { DEMO_CHANNELS, DEMO_PASSWORD, DEMO_USERS } from './demo-data.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-demo-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function started(settings: Record<string, string>, dir: string, databaseUrl?: string) {
  return startServices(testConfig(settings, dir, databaseUrl));
}

describe('demo data', () => {
  it('is seeded on the first start of an empty embedded store: three users that work through the API', async () => {
    const dir = dataDir();
    const { services, seededDemo } = await started({ DEA_DEMO: 'true' }, dir);
    try {
      expect(seededDemo).toBe(true);
      const users = await services.store.users.list();
      expect(users.map((user) => user.username).sort()).toEqual(['demo', 'demo-channel', 'demo-off']);
      const app = await buildApp({ services });
      try {
        const signIn = async (username: string) => {
          const response = await app.inject({
            method: 'POST',
            url: '/login/api/session',
            payload: { username, password: DEMO_PASSWORD },
          });
          expect(response.json(), username).toMatchObject({ error: 0 });
          const session = response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value ?? '';
          const token = response.cookies.find((cookie) => cookie.name === XSRF_COOKIE_NAME)?.value ?? '';
          return { cookie: `${SESSION_COOKIE}=${session}`, [XSRF_HEADER_NAME]: token };
        };
        const post = (url: string, payload: object, headers: Record<string, string>) =>
          app
            .inject({ method: 'POST', url: `${API}/${url}`, payload, headers })
            .then((r) => r.json<{ error: number; result: Record<string, unknown> }>());
        const idOf = (username: string) => users.find((user) => user.username === username)?.id ?? '';

        const demo = await signIn('demo');
        expect(await post('user/getPolicy', bodies.getPolicy(idOf('demo')), demo)).toMatchObject({
          result: { options: { enableECode: true, emergencyCodeDelivery: 'Display' } },
        });
        expect(await post('tempPass/create', bodies.create(idOf('demo')), demo)).toMatchObject({ error: 0 });

        const channel = await signIn('demo-channel');
        expect(await post('user/getPolicy', bodies.getPolicy(idOf('demo-channel')), channel)).toMatchObject({
          result: { options: { enableECode: true, emergencyCodeDelivery: 'Channel' } },
        });
        const map = (
          await post('user/queryAvailableChannels', bodies.channels(idOf('demo-channel')), channel)
        ).result as Record<string, string>;
        expect(Object.keys(map).sort()).toEqual([...CHANNEL_KEYS].sort());
        const sent = await post(
          'tempPass/createAndSend',
          bodies.createAndSend(
            idOf('demo-channel'),
            'smtp',
            splitChannelValue(map.personalEmail ?? '').reference,
          ),
          channel,
        );
        expect(sent).toMatchObject({ error: 0, result: { to: 'c***@e***.org' } });

        const off = await signIn('demo-off');
        expect(await post('user/getPolicy', bodies.getPolicy(idOf('demo-off')), off)).toMatchObject({
          result: { options: { enableECode: false } },
        });
        expect(await post('tempPass/create', bodies.create(idOf('demo-off')), off)).toMatchObject({
          error: 3,
        });
      } finally {
        await app.close();
      }
      const channels = await services.store.channels.listOfUser(
        users.find((user) => user.username === 'demo-channel')?.id ?? '',
      );
      expect(Object.fromEntries(channels.map((c) => [c.key, c.address]))).toEqual(DEMO_CHANNELS);
      // References are random, opaque tokens: no time, no order, nothing of the address.
      for (const channel of channels) expect(channel.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(DEMO_USERS).toHaveLength(3);
    } finally {
      await services.store.close();
    }

    // A second start on the same store does not seed again.
    const again = await started({ DEA_DEMO: 'true' }, dir);
    try {
      expect(again.seededDemo).toBe(false);
      expect(await again.services.store.users.count()).toBe(3);
    } finally {
      await again.services.store.close();
    }
  });

  it('is not seeded into a store that already has users', async () => {
    const dir = dataDir();
    const first = await started({ DEA_DEMO: 'false' }, dir);
    await first.services.store.users.create({
      id: 'u1',
      username: usernameOrThrow('operator'),
      passwordHash: 'x',
      fullName: 'Op',
      locale: 'en',
      createdAt: 0,
    });
    await first.services.store.close();
    const second = await started({ DEA_DEMO: 'true' }, dir);
    try {
      expect(second.seededDemo).toBe(false);
      expect((await second.services.store.users.list()).map((user) => user.username)).toEqual(['operator']);
    } finally {
      await second.services.store.close();
    }
  });

  it('is not seeded unless asked for: DEA_DEMO unset, false or 0', async () => {
    for (const value of ['', 'false', '0']) {
      const { services, seededDemo } = await started({ DEA_DEMO: value }, dataDir());
      try {
        expect(seededDemo).toBe(false);
        expect(await services.store.users.count()).toBe(0);
      } finally {
        await services.store.close();
      }
    }
  });

  it('is never seeded on PostgreSQL, even with DEA_DEMO=true', async () => {
    const database = await createTestDatabase(inject('postgresUrl'));
    let services: Services | undefined;
    try {
      const result = await started({ DEA_DEMO: 'true' }, dataDir(), database.url);
      services = result.services;
      expect(services.store.kind).toBe('postgres');
      expect(result.seededDemo).toBe(false);
      expect(await services.store.users.count()).toBe(0);
    } finally {
      await services?.store.close();
      await database.drop();
    }
  });
});
