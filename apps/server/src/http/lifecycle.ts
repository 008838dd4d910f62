import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serviceUnavailable } from '../domain/errors.js';

/**
 * Where a stopping instance stands: `serving`; `draining` (SIGTERM arrived: /readyz answers 503 so
 * load balancers take the instance out, while every request is still served); `closing` (the
 * listener closes: requests under way finish, new ones are refused in the envelope).
 */
export type LifecycleState = 'serving' | 'draining' | 'closing';

export interface Lifecycle {
  state: LifecycleState;
}

/** What a request that arrives while the instance closes is asked to wait before trying again. */
const CLOSING_RETRY_SECONDS = 1;

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

/**
 * The instance's lifecycle on the app: `closing` from the moment `close()` begins, and a request
 * arriving then (on a kept-alive connection) gets 503 in the envelope, translated, with
 * Retry-After and `Connection: close`, instead of Fastify's own plain answer. From the drain on,
 * every answer closes its connection (closeConnectionsWhileStopping).
 */
export function installLifecycle(app: FastifyInstance): void {
  app.decorate('lifecycle', { state: 'serving' } satisfies Lifecycle);
  app.addHook('preClose', async () => {
    app.lifecycle.state = 'closing';
  });
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (app.lifecycle.state !== 'closing') return done();
    void reply.header('connection', 'close');
    done(serviceUnavailable(CLOSING_RETRY_SECONDS));
  });
  closeConnectionsWhileStopping(app);
}

/**
 * Once the instance stops serving (the drain, then the close), every answer carries
 * `Connection: close` and its connection closes after it: a client learns to open a new
 * connection (to another instance) instead of sending its next request on one that the listener's
 * close would cut. Only connections idle since before the drain are left for the close, which
 * closes them cleanly, with no request on them. On the app and on the management port (whose
 * `lifecycle` is the app's).
 */
export function closeConnectionsWhileStopping(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (app.lifecycle.state !== 'serving') void reply.header('connection', 'close');
    done(null, payload);
  });
}
