import { exportDestinationsOf } from '../config.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { buildManagementApp } from '../app.js';
import { newId } from '../crypto/ids.js';
import { purgeStore, retentionRulesOf } from '../domain/retention/retention.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import type { TestApp } from '../testing/test-app.js';

/** Routes of the API as Fastify has them, read from its radix tree (children extend their parent). */
function apiRoutes(t: TestApp): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:[├└]── )?(\S+)(?: \(([A-Z, ]+)\))?$/.exec(line.trimEnd());
    if (!match) continue;
    const [, indent = '', segment = '', methods] = match;
    const depth = indent.length / 4;
    stack.length = depth;
    const path = `${stack.join('')}${segment}`;
    stack.push(segment);
    if (
      methods === undefined ||
      !/^\/(dea|login)\/(admin-)?api\//.test(path) ||
      path.startsWith('/dea/api/docs')
    )
      continue;
    // OpenAPI writes a parameter as {name}, Fastify as :name.
    const documentedPath = path.replace(/:(\w+)/g, '{$1}');
    for (const method of methods.split(', '))
      if (method !== 'HEAD') routes.push(`${method} ${documentedPath}`);
  }
  return [...new Set(routes)].sort();
}

describe('operations', () => {
  appTest(
    'a draining instance answers /readyz 503 and still serves; a closing one answers 503 in the envelope',
    async ({ startApp }) => {
      const t = await startApp();
      t.app.lifecycle.state = 'draining';
      const draining = await t.app.inject({ url: '/readyz' });
      expect(draining.statusCode).toBe(503);
      expect(draining.json()).toEqual({ status: 'draining' });
      expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/dea/api/resourceFile/getLanguageList' })).statusCode).toBe(200);

      // What close() sets as it begins (preClose): a request on a kept-alive connection then.
      t.app.lifecycle.state = 'closing';
      const closing = await t.app.inject({
        method: 'POST',
        url: '/login/api/session',
        headers: { 'accept-language': 'de' },
        payload: { username: 'someone', password: 'something' },
      });
      expect(closing.statusCode).toBe(503);
      expect(closing.headers['retry-after']).toBe('1');
      expect(closing.headers.connection).toBe('close');
      expect(closing.json()).toEqual({
        error: 1,
        message:
          'Der Dienst ist vorübergehend nicht verfügbar. Bitte versuchen Sie es in einigen Minuten erneut.',
        result: { retryAfterSeconds: 1 },
        requestId: closing.headers['x-request-id'],
      });
      expect(await t.services.store.audit.list({ limit: 10 })).toEqual([]);
      t.app.lifecycle.state = 'serving';
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    },
  );

  appTest('answers liveness, and readiness while the store answers', async ({ startApp }) => {
    const t = await startApp();
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({
      status: 'ok',
      // The release's version, from the root package.json (not the page's 8.0.20).
      version: (
        JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
          version: string;
        }
      ).version,
    });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    await t.services.store.close();
    const unready = await t.app.inject({ url: '/readyz' });
    expect(unready.statusCode).toBe(503);
    expect(unready.json()).toEqual({ status: 'unavailable' });
  });

  appTest(
    'serves /metrics on the management port, and on the public port only with DEA_PUBLIC_METRICS=true',
    async ({ startApp }) => {
      const metricsOf = async (app: FastifyInstance) => {
        const answer = await app.inject({ url: '/metrics' });
        return answer.statusCode === 200 && answer.body.includes('dea_signins_total');
      };
      const byDefault = await startApp();
      expect(await metricsOf(byDefault.app)).toBe(false);
      expect((await byDefault.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await byDefault.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      // Not in the OpenAPI document either way.
      expect((await byDefault.app.inject({ url: '/dea/api/docs/json' })).body).not.toContain('/metrics');

      expect(await metricsOf((await startApp({ DEA_PUBLIC_METRICS: 'true' })).app)).toBe(true);

      for (const publicMetrics of ['false', 'true']) {
        const managed = await startApp({ DEA_MANAGEMENT_PORT: '0', DEA_PUBLIC_METRICS: publicMetrics });
        const management = await buildManagementApp(managed.app);
        try {
          expect(await metricsOf(management)).toBe(true);
          expect((await management.inject({ url: '/readyz' })).statusCode).toBe(200);
          expect(await metricsOf(managed.app)).toBe(publicMetrics === 'true');
          expect((await managed.app.inject({ url: '/readyz' })).statusCode).toBe(404);
        } finally {
          await management.close();
        }
      }
    },
  );

  appTest('counts codes, sign-ins and request latency in Prometheus metrics', async ({ startApp }) => {
    const t = await startApp({ DEA_PUBLIC_METRICS: 'true' });
    const user = await t.createUser();
    const session = await t.signIn(user);
    await t.app.inject({
      method: 'POST',
      url: '/login/api/session',
      payload: { username: user.username, password: 'wrong' },
    });
    const create = await t.call(
      '/dea/api/tempPass/create',
      { count: 1, return: ['id', 'password'], attrs: { user: { id: user.id }, locale: 'en' } },
      session,
    );
    expect(create.json()).toMatchObject({ error: 0 });
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.body).toContain('dea_codes_issued_total{channel="screen"} 1');
    expect(metrics.body).toContain('dea_signins_total{outcome="succeeded"} 1');
    expect(metrics.body).toContain('dea_signins_total{outcome="failed"} 1');
    expect(metrics.body).toMatch(
      /dea_http_request_duration_seconds_count\{method="POST",route="\/dea\/api\/tempPass\/create",status="200"\} 1/,
    );
    expect(metrics.body).toContain('dea_process_cpu_seconds_total');
    // Prometheus's own linter (Debian's prometheus package) accepts every metric.
    const linted = spawnSync('promtool', ['check', 'metrics'], { input: metrics.body, encoding: 'utf8' });
    expect(linted.error, 'promtool is installed (.ci/run installs prometheus)').toBeUndefined();
    expect(`${linted.stdout}${linted.stderr}`.trim()).toBe('');
    expect(linted.status).toBe(0);

    const { key } = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'metrics',
      ['verify'],
      t.clock.now(),
    );
    const verify = (code: string) =>
      t.app.inject({
        method: 'POST',
        url: '/dea/api/tempPass/verify',
        headers: { authorization: `Bearer ${key}` },
        payload: { userId: user.id, code },
      });
    const issued = create.json<{ result: { rows: [{ password: string }] } }>().result.rows[0].password;
    expect((await verify(issued)).json()).toMatchObject({ result: { valid: true } });
    expect((await verify(issued)).json()).toMatchObject({ result: { valid: false } });
    const after = (await t.app.inject({ url: '/metrics' })).body;
    expect(after).toContain('dea_code_verifications_total{outcome="used",channel="screen"} 1');
    expect(after).toContain('dea_code_verifications_total{outcome="failed",channel="none"} 1');
    expect(metrics.body).not.toContain(
      create.json<{ result: { rows: [{ password: string }] } }>().result.rows[0].password,
    );
  });

  appTest(
    'counts the rows of each purge batch in dea_purged_rows_total while the purge goes on',
    async ({ startApp }) => {
      const t = await startApp();
      const user = await t.createUser();
      const now = t.clock.now();
      for (let index = 0; index < 5; index += 1) {
        const code = {
          id: newId(now - 120_000),
          userId: user.id,
          codeHash: `expired-${index}`,
          createdAt: now - 120_000,
          expiresAt: now - 60_000,
          uses: 1,
          channelType: null,
        };
        expect(
          await t.services.store.codes.issue(code, 10, { event: 'code.issued', userId: user.id }),
        ).toEqual({
          issued: true,
          channels: [],
        });
      }
      const purgedCodes = async () =>
        /dea_purged_rows_total\{kind="codes"\} (\d+)/.exec(await t.services.metrics.registry.metrics())?.[1];
      const rules = retentionRulesOf(t.services.config, exportDestinationsOf(t.services.config));
      const seenBetweenBatches: (string | undefined)[] = [];
      await purgeStore(
        t.services.store,
        { ...rules, retention: { ...rules.retention, batchSize: 2, busyPercent: 100 } },
        {
          now: t.clock.now,
          holder: 'test',
          actor: 'test',
          kinds: ['codes'],
          pause: async () => {
            seenBetweenBatches.push(await purgedCodes());
          },
        },
      );
      expect(seenBetweenBatches).toEqual(['2', '4']);
      expect(await purgedCodes()).toBe('5');
    },
  );

  appTest(
    'describes every API route in the OpenAPI document, and serves a browsable reference',
    async ({ startApp }) => {
      const t = await startApp();
      const document = (await t.app.inject({ url: '/dea/api/docs/json' })).json();
      expect(document.openapi).toBe('3.1.0');
      // Derived from the routes: every API route is in it, with its method, and nothing else.
      const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, operations]) =>
          Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
        )
        .sort();
      expect(documented).toEqual(apiRoutes(t));
      const create = document.paths['/dea/api/tempPass/create'].post;
      expect(create.requestBody.content['application/json'].schema.properties.count).toMatchObject({
        enum: [1],
      });
      expect(create.responses['403']).toBeDefined();
      const reference = await t.app.inject({ url: '/dea/api/docs/' });
      expect([200, 302]).toContain(reference.statusCode);
    },
  );
});
