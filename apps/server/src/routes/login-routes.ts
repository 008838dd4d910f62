import {
  LOGIN_API_SESSION_PATH,
  LOGOUT_PATH,
  PAGE_BASE_PATH,
  SignInRequest,
  SignInResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notPermitted } from '../domain/errors.js';
import { isOwnSignOut } from '../domain/page/sign-out.js';
import { escapeHtml } from '../delivery/html.js';
import { requestLanguage } from '../http/request-language.js';
import { isClientGone } from '../http/client-gone.js';
import { clearSessionCookies, sessionIdOf, setSessionCookies } from '../http/cookies.js';
import { ok } from '../http/envelope.js';
import { documented } from '../http/route-docs.js';

export function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * Whether an Origin header names this server as the request reached it. Also its https origin
 * when the request came over plain HTTP (ADR 0040): a TLS-terminating proxy that DEA_TRUST_PROXY
 * does not name forwards the browser's https request as http, and the browser's Origin is still
 * this very host; another site cannot be on this host.
 */
export function isOwnOrigin(request: FastifyRequest, header: string | undefined): boolean {
  if (header === undefined) return false;
  return header === origin(request) || (request.protocol === 'http' && header === `https://${request.host}`);
}

/** A sign-in posted from another site is refused (login cross-site request forgery). */
function isSameOrigin(request: FastifyRequest): boolean {
  const header = request.headers.origin;
  return header === undefined || isOwnOrigin(request, header);
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

  await app.register(logoutRoutes);
};

/**
 * GET /dea/logout ends the session only when the request is the user's own (domain/page/sign-out.ts):
 * the page's navigation, same-origin. Any other (a link or redirect from another site or a sibling
 * subdomain, a browser without Fetch Metadata) ends nothing and gets a page asking to confirm,
 * whose form posts to the same path from this origin. Without a session there is nothing to end,
 * and the request lands on the logout page either way.
 */
const logoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  // The confirmation's form has no fields; its empty body is not read.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { bodyLimit: 1024 },
    (_request, _body, done) => done(null, undefined),
  );

  const signOut = async (request: FastifyRequest, reply: FastifyReply) => {
    const sessionId = sessionIdOf(request);
    const originHeader = headerOf(request, 'origin');
    const own = isOwnSignOut({
      method: request.method,
      fetchSite: headerOf(request, 'sec-fetch-site'),
      origin: originHeader,
      ownOrigin: isOwnOrigin(request, originHeader) ? (originHeader ?? origin(request)) : origin(request),
    });
    void reply.header('cache-control', 'no-store');
    if (sessionId !== undefined && !own) return confirmationPage(request, reply);
    if (sessionId !== undefined) {
      const now = services.now();
      const state = await services.sessions.resolve(sessionId, now);
      const registrationSessionsEnded = await services.sessions.end(sessionId, now);
      if (state.state === 'active') {
        await services.store.audit.append(
          {
            event: 'signout',
            userId: state.user.id,
            actor: state.user.username,
            clientAddress: request.ip,
            details: { registrationSessionsEnded },
          },
          now,
        );
      }
    }
    if (own) clearSessionCookies(request, reply);
    const loginUrl = `${origin(request)}${services.config.loginPath}`;
    // 303: the confirmation's POST lands on the page with a GET.
    return reply.redirect(
      `${PAGE_BASE_PATH}#/logoutLanding?ep=${encodeURIComponent(loginUrl)}`,
      request.method === 'POST' ? 303 : 302,
    );
  };
  app.get(LOGOUT_PATH, { schema: { hide: true } }, signOut);
  app.post(LOGOUT_PATH, { schema: { hide: true } }, signOut);
};

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** "Do you really want to log out?" with Logout (a POST from this origin) and Cancel (the page). */
async function confirmationPage(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { catalogs } = request.server.services;
  const language = await requestLanguage(request).catch(() => 'en');
  const [question, logout, cancel] = await Promise.all(
    (['confirmMessage.logout', 'logout', 'cancel'] as const).map((key) =>
      catalogs.text(language, key).catch(() => key),
    ),
  );
  const html = [
    '<!doctype html>',
    `<html lang="${escapeHtml(language.replace('_', '-'))}">`,
    `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(logout ?? '')}</title></head>`,
    '<body dir="auto">',
    `<p>${escapeHtml(question ?? '')}</p>`,
    `<form method="post" action="${LOGOUT_PATH}"><button type="submit">${escapeHtml(logout ?? '')}</button>`,
    ` <a href="${PAGE_BASE_PATH}">${escapeHtml(cancel ?? '')}</a></form>`,
    '</body>',
    '</html>',
  ].join('\n');
  return reply.code(200).type('text/html; charset=utf-8').send(html);
}
