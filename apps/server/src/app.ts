import fastifyCookie from '@fastify/cookie';
import { API_BASE_PATH, CONSOLE_API_BASE_PATH } from '@dea/contract';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { closeConnectionsWhileStopping, installLifecycle } from './http/lifecycle.js';
import { OneLinePerRequest } from './http/request-log.js';
import { requestLineLoggerOf } from './logging.js';
import { securityHeaders } from './http/security-headers.js';
import { PAGE_WITHOUT_SESSION_SCRIPT_HASH } from './routes/page-without-session.js';
import { badUrl, installErrorHandling } from './http/envelope.js';
import { demoModeOf } from './domain/settings/demo-mode.js';
import type { Services } from './http/types.js';
import { codeRoutes } from './routes/api/code-routes.js';
import { channelRoutes, channelUndoRoute } from './routes/api/channel-routes.js';
import { publicRoutes } from './routes/api/public-routes.js';
import { userRoutes } from './routes/api/user-routes.js';
import { verifyRoute } from './routes/api/verify-route.js';
import { loginRoutes } from './routes/login-routes.js';
import { operationsRoutes, registerApiDocument } from './routes/operations-routes.js';
import { SCIM_BASE_PATH, scimRoutes } from './routes/scim-routes.js';
import { consoleAuthRoutes } from './routes/console/console-auth-routes.js';
import { installConsoleGuard } from './http/console-guard.js';
import { consoleOidcRoutes } from './routes/console/console-oidc-routes.js';
import { helpDeskRoutes } from './routes/console/help-desk-routes.js';
import { administrationRoutes } from './routes/console/administration-routes.js';
import { peopleRoutes } from './routes/console/people-routes.js';
import { consoleAccountRoutes } from './routes/console/console-account-routes.js';
import { passwordLinkRoute } from './routes/password-link-route.js';
import { auditRoutes } from './routes/console/audit-routes.js';
import { reportRoutes } from './routes/console/report-routes.js';
import { validateCheckRoute } from './routes/validate-check-route.js';
import { outboxPage } from './routes/outbox-page.js';
import { loginHtmlRoute } from './routes/login-html-route.js';
import { pageHtmlRoute } from './routes/page-html-route.js';
import { staticRoutes } from './routes/static-routes.js';
import { schemaCompilersOnFirstCall } from './http/schema-compilers.js';

export interface AppOptions {
  services: Services;
  logger?: FastifyServerOptions['loggerInstance'] | boolean;
  /** The certificate and key of native HTTPS (DEA_TLS_CERT_FILE); none: plain HTTP. */
  tls?: { cert: Buffer; key: Buffer };
}

/** A request id a client or proxy sends (X-Request-Id) is kept when it looks like one; else a new one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}

function trustedHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * How often Node looks for requests past DEA_REQUEST_TIMEOUT_SECONDS (its default, 30 s, let a
 * request of an 8 s timeout live up to 38 s).
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The timeouts of a listener (public, TLS or management), so that a client that stops sending (a
 * stalled body, 1000 of them from one host) does not hold a connection: a socket on which nothing
 * arrives for DEA_IDLE_TIMEOUT_SECONDS closes (a timer of its own), and a request whose headers
 * and body have not arrived in full DEA_REQUEST_TIMEOUT_SECONDS after it began is answered 408 and
 * closed, found by a check every TIMEOUT_CHECK_INTERVAL_MS. Node reads its checking interval and
 * its headers timeout only when the server is made, hence the server options (`http`, or `https`
 * beside the certificate).
 */
function connectionTimeouts(config: Services['config']) {
  return {
    connectionTimeout: config.idleTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: Math.min(config.idleTimeoutMs, 72_000),
  };
}

/** The part of connectionTimeouts that Node's server takes when it is made. */
function serverTimeouts(config: Services['config']): ServerOptions {
  return {
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
}

/** Builds the whole HTTP application; it never listens (server.ts does, tests use inject). */
/** How long a stopping instance sends audit entries still waiting for syslog, HTTPS, the file or a webhook. */
const AUDIT_EXPORT_SETTLE_MS = 5000;

export async function buildApp({ services, logger = false, tls }: AppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    ...(typeof logger === 'boolean' ? { logger } : { loggerInstance: logger }),
    // Native HTTPS (DEA_TLS_CERT_FILE); the certificate is replaced on SIGHUP (server.ts).
    ...(tls === undefined
      ? { http: serverTimeouts(config) }
      : {
          https: {
            ...tls,
            ...serverTimeouts(config),
            // A connection that does not finish its TLS handshake in time is closed (Node: 120 s).
            handshakeTimeout: Math.min(config.idleTimeoutMs, config.requestTimeoutMs),
          },
        }),
    ...connectionTimeouts(config),
    // Unique across instances, in every log line (reqId), the X-Request-Id header and error answers.
    genReqId: requestIdOf,
    bodyLimit: config.bodyLimitBytes,
    // Requests that arrive while the instance closes are answered in the envelope (http/lifecycle.ts).
    return503OnClosing: false,
    // One line per request, written when it is answered, not Fastify's two.
    logController: new OneLinePerRequest(requestLineLoggerOf(logger)),
    // A hop count believes that many proxies nearest the server (Fastify's types lack the number form).
    trustProxy: typeof config.trustProxy === 'number' ? trustedHops(config.trustProxy) : config.trustProxy,
    // A URL that does not decode is the client's error, answered in the envelope.
    frameworkErrors: (_error, request, reply) => void badUrl(request, reply),
    // Each route's schemas compiled when the route is first asked (http/schema-compilers.ts).
    schemaController: schemaCompilersOnFirstCall(),
    ajv: {
      // Wrong types are refused, never coerced; unknown fields are refused, never dropped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('services', services);
  app.decorateRequest('signedIn', undefined);
  await app.register(fastifyCookie);

  // Every body is JSON (DESIGN section 2): a text/plain body gets 400 "must be JSON", not a
  // confusing schema error. Empty JSON bodies are accepted for calls whose request is empty.
  app.removeContentTypeParser('text/plain');
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    void defaultJsonParser(request, text, done);
  });

  installErrorHandling(app);
  installLifecycle(app);
  app.addHook('onSend', securityHeaders(config.cspImageOrigins, [PAGE_WITHOUT_SESSION_SCRIPT_HASH]));
  // Hooks of every request take a callback rather than a promise: one microtask less each.
  // Counted in flight until its response is sent or the client goes: background work waits for them.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.raw.once('close', services.requestTurns.begin());
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL, keeps the label set small.
    services.metrics.requestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  // Notices still on their way finish before the store they write to is closed.
  app.addHook('onClose', async () => services.notices.settled());
  // Audit entries still waiting for their destinations get a moment to go.
  app.addHook('onClose', async () => services.auditExport?.close(AUDIT_EXPORT_SETTLE_MS));
  // The password hashing threads end with the app (a hash under way fails, its request is over).
  app.addHook('onClose', async () => services.hashThreads.close());

  // Before every route, so that the document sees each of them.
  await registerApiDocument(app);
  // On the management port instead when DEA_MANAGEMENT_PORT is set (buildManagementApp); /metrics
  // on the public port only when the operator says so (DEA_PUBLIC_METRICS).
  await app.register(operationsRoutes, {
    health: config.listeners.management === undefined,
    metrics: config.listeners.publicMetrics,
  });
  await app.register(loginRoutes);
  await app.register(passwordLinkRoute);
  await app.register(
    async function pageApi(api) {
      api.addHook('onSend', (_request, reply, payload, done) => {
        if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
        done(null, payload);
      });
      await api.register(publicRoutes);
      await api.register(userRoutes);
      await api.register(codeRoutes);
      await api.register(channelRoutes);
      await api.register(channelUndoRoute);
      await api.register(verifyRoute);
      // Any other GET under the API is unknown: answered 404 at once, never looked for among the
      // page's files (the static wildcard of /dea/ would stat up to three copies of it first).
      api.get('/*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
    },
    { prefix: API_BASE_PATH.replace(/\/$/, '') },
  );
  await app.register(
    async function consoleApiRoutes(consoleApi) {
      // Who may call each console route, as the route declares it (config.console), checked once.
      installConsoleGuard(consoleApi);
      consoleApi.addHook('onSend', async (_request, reply) => {
        void reply.header('cache-control', 'no-store');
      });
      await consoleApi.register(consoleAuthRoutes);
      await consoleApi.register(consoleOidcRoutes);
      await consoleApi.register(helpDeskRoutes);
      await consoleApi.register(auditRoutes);
      await consoleApi.register(reportRoutes);
      await consoleApi.register(administrationRoutes);
      await consoleApi.register(peopleRoutes);
      await consoleApi.register(consoleAccountRoutes);
    },
    { prefix: CONSOLE_API_BASE_PATH.replace(/\/$/, '') },
  );
  await app.register(scimRoutes, { prefix: SCIM_BASE_PATH });
  await app.register(validateCheckRoute);
  // The demo outbox only while demo mode is on (domain/settings/demo-mode.ts); the page asks again each time.
  if ((await demoModeOf(config, services.store)).on) await app.register(outboxPage);
  await app.register(pageHtmlRoute, { webDir: config.webDir, loginPath: config.loginPath });
  await app.register(loginHtmlRoute, { webDir: config.webDir, loginPath: config.loginPath });
  await app.register(staticRoutes, { webDir: config.webDir, loginPath: config.loginPath });
  return app;
}

/**
 * /healthz, /readyz and /metrics on DEA_MANAGEMENT_PORT, for the monitoring network: plain HTTP,
 * not logged per request (probes would drown the log), ready as long as `main` serves.
 */
export async function buildManagementApp(main: FastifyInstance): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: main.log,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    schemaController: schemaCompilersOnFirstCall(),
    http: serverTimeouts(main.services.config),
    ...connectionTimeouts(main.services.config),
  });
  app.decorate('services', main.services);
  app.decorate('lifecycle', main.lifecycle);
  closeConnectionsWhileStopping(app);
  installErrorHandling(app);
  await app.register(operationsRoutes, { health: true, metrics: true });
  return app;
}
