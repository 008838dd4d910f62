import { setTimeout as delay } from 'node:timers/promises';
import {
  ErrorNumber,
  LOGIN_API_SESSION_PATH,
  LOGOUT_PATH,
  PAGE_BASE_PATH,
  SignInRequest,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { verifyPassword } from '../crypto/password-hash.js';
import { ApiError, notPermitted } from '../domain/api-error.js';

/** Locked user names and addresses get error 140 with the minutes to wait. */
function signinLocked(lockedForMs: number): ApiError {
  const retryAfterSeconds = Math.ceil(lockedForMs / 1000);
  return new ApiError(
    ErrorNumber.tooManyRequests,
    'login.locked',
    { minutes: Math.ceil(lockedForMs / 60_000) },
    200,
    { retryAfterSeconds },
  );
}
import { clearSessionCookies, sessionIdOf, setSessionCookies } from '../http/cookies.js';
import { ok } from '../http/envelope.js';

export function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** A sign-in posted from another site is refused (login cross-site request forgery). */
function isSameOrigin(request: FastifyRequest): boolean {
  const header = request.headers.origin;
  return header === undefined || header === origin(request);
}

/** Sign-in (POST /login/api/session) and sign-out (GET /dea/logout). */
export const loginRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;

  app.post(LOGIN_API_SESSION_PATH, { schema: { body: SignInRequest } }, async (request, reply) => {
    if (!isSameOrigin(request)) throw notPermitted();
    const { username, password } = request.body;
    const now = services.now();
    const lockedForMs = await services.signinThrottle.lockedFor(username, request.ip, now);
    if (lockedForMs > 0) {
      await services.store.audit.append(
        { event: 'signin.locked', actor: username, clientAddress: request.ip, details: {} },
        now,
      );
      throw signinLocked(lockedForMs);
    }
    const user = await services.store.users.findByUsername(username);
    // Unknown and disabled users cost the same hash as a wrong password: one answer, one timing.
    const passwordOk = await verifyPassword(
      password,
      user?.passwordHash ?? (await services.decoyPasswordHash),
    );
    if (user === undefined || user.disabled || !passwordOk) {
      await services.store.audit.append(
        {
          event: 'signin.failed',
          userId: user?.id ?? null,
          actor: username,
          clientAddress: request.ip,
          details: {
            reason: user === undefined ? 'unknown-user' : user.disabled ? 'disabled' : 'wrong-password',
          },
        },
        now,
      );
      const outcome = await services.signinThrottle.recordFailure(username, request.ip, now);
      if (outcome.delayMs > 0) await delay(outcome.delayMs);
      if (outcome.lockedForMs > 0) throw signinLocked(outcome.lockedForMs);
      throw new ApiError(ErrorNumber.notPermitted, 'login.failed');
    }
    await services.signinThrottle.recordSuccess(username);
    const previous = sessionIdOf(request);
    if (previous !== undefined) await services.sessions.end(previous, now);
    const { sessionId, xsrfToken } = await services.sessions.start(user.id, now);
    await services.store.users.recordSignIn(user.id, now);
    await services.store.audit.append(
      { event: 'signin.succeeded', userId: user.id, actor: username, clientAddress: request.ip },
      now,
    );
    setSessionCookies(request, reply, sessionId, xsrfToken);
    void reply.header('cache-control', 'no-store');
    return ok({ username: user.username });
  });

  app.get(LOGOUT_PATH, async (request, reply) => {
    const sessionId = sessionIdOf(request);
    const now = services.now();
    if (sessionId !== undefined) {
      const state = await services.sessions.resolve(sessionId, now);
      await services.sessions.end(sessionId, now);
      if (state.state === 'active') {
        await services.store.audit.append(
          { event: 'signout', userId: state.user.id, actor: state.user.username, clientAddress: request.ip },
          now,
        );
      }
    }
    clearSessionCookies(request, reply);
    const loginUrl = `${origin(request)}${services.config.loginPath}`;
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${PAGE_BASE_PATH}#/logoutLanding?ep=${encodeURIComponent(loginUrl)}`, 302);
  });
};
