import {
  LOGIN_API_SESSION_PATH,
  LOGOUT_PATH,
  PAGE_BASE_PATH,
  SignInRequest,
  SignInResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notPermitted } from '../domain/api-error.js';
import { isClientGone } from '../http/client-gone.js';
import { clearSessionCookies, sessionIdOf, setSessionCookies } from '../http/cookies.js';
import { ok } from '../http/envelope.js';
import { documented } from '../http/route-docs.js';

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

  app.post(
    LOGIN_API_SESSION_PATH,
    {
      schema: {
        body: SignInRequest,
        ...documented({ summary: 'Sign in', security: 'none', result: SignInResult }),
      },
    },
    async (request, reply) => {
      if (!isSameOrigin(request)) throw notPermitted();
      const { user, sessionId, xsrfToken } = await services.signIn.signIn({
        ...request.body,
        clientAddress: request.ip,
        previousSessionId: sessionIdOf(request),
        stillWanted: () => !isClientGone(request),
      });
      setSessionCookies(request, reply, sessionId, xsrfToken);
      void reply.header('cache-control', 'no-store');
      return ok({ username: user.username });
    },
  );

  app.get(LOGOUT_PATH, { schema: { hide: true } }, async (request, reply) => {
    // Another site may link or redirect here; only the product's own pages (or a typed URL) end
    // the session. The navigation stays what the spec says.
    const fromAnotherSite = request.headers['sec-fetch-site'] === 'cross-site';
    const sessionId = fromAnotherSite ? undefined : sessionIdOf(request);
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
    if (!fromAnotherSite) clearSessionCookies(request, reply);
    const loginUrl = `${origin(request)}${services.config.loginPath}`;
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${PAGE_BASE_PATH}#/logoutLanding?ep=${encodeURIComponent(loginUrl)}`, 302);
  });
};
