import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { RELEASE_VERSION } from '../release-version.js';

const READINESS_TIMEOUT_MS = 2_000;

/**
 * What operators and their tooling call: liveness, readiness (the store answers), Prometheus
 * metrics, and the OpenAPI document with a browsable reference at /dea/api/docs.
 */
export const operationsRoutes: FastifyPluginAsync<{ health: boolean; metrics: boolean }> = async (
  app,
  options,
) => {
  const { metrics } = app.services;
  const hidden = { schema: { hide: true } };
  // Metrics: always on the management port, on the public one only with DEA_PUBLIC_METRICS.
  if (options.metrics) {
    app.get('/metrics', hidden, async (_request, reply) => {
      void reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store');
      return metrics.registry.metrics();
    });
  }
  if (!options.health) return;
  app.get('/healthz', hidden, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { status: 'ok', version: RELEASE_VERSION };
  });

  app.get('/readyz', hidden, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    // A stopping instance leaves the load balancer's rotation first (DEA_SHUTDOWN_DRAIN_SECONDS).
    if (app.lifecycle.state !== 'serving') return reply.code(503).send({ status: 'draining' });
    const timeout = new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error('store did not answer in time')), READINESS_TIMEOUT_MS).unref();
    });
    try {
      await Promise.race([app.services.store.ping(), timeout]);
      return { status: 'ready' };
    } catch (error) {
      app.log.warn({ err: error }, 'not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
};

/**
 * The OpenAPI document, derived from what every route declares (request, summary, who may call
 * it, every answer): registered before the routes, so it sees each of them.
 */
export async function registerApiDocument(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Emergency Access API',
        version: RELEASE_VERSION,
        description:
          'Every answer but userinfo and message is the envelope {error, message, result}. Error numbers: 0 ok, 1 internal, 2 invalid request, 3 not permitted, 130 unknown channel or recipient, 140 too many requests, 148 code store full, 150 delivery failed.',
      },
      components: {
        securitySchemes: {
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'dea_session',
            description: 'Behind TLS the cookie is named __Host-dea_session',
          },
          xsrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-XSRF-TOKEN',
            description:
              'The value of the XSRF-TOKEN cookie (__Host-XSRF-TOKEN behind TLS), on every non-GET call',
          },
          serviceKey: { type: 'http', scheme: 'bearer', description: 'A service key: dea_<id>.<secret>' },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'dea_console',
            description: 'The console session (__Host-dea_console behind TLS)',
          },
          consoleToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Console-Token',
            description: 'The value of the dea_console_token cookie, on every non-GET console call',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/dea/api/docs' });
}
