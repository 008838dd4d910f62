import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import { openApiDocument } from '../observability/openapi-document.js';

const READINESS_TIMEOUT_MS = 2_000;

/**
 * What operators and their tooling call: liveness, readiness (the store answers), Prometheus
 * metrics, and the OpenAPI document with a browsable reference at /dea/api/docs.
 */
export const operationsRoutes: FastifyPluginAsync<{ metrics: Metrics }> = async (app, { metrics }) => {
  app.get('/healthz', async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/readyz', async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
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

  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store');
    return metrics.registry.metrics();
  });

  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument() as never } });
  await app.register(swaggerUi, { routePrefix: '/dea/api/docs' });
};
