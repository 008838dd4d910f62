import '@fastify/cookie';
import { XSRF_COOKIE_NAME } from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'dea_session';

function secure(request: FastifyRequest): boolean {
  const setting = request.server.services.config.cookieSecure;
  return setting === 'always' || (setting === 'auto' && request.protocol === 'https');
}

/** The session cookie is HttpOnly; the token cookie is readable by the page, which echoes it. */
export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  xsrfToken: string,
): void {
  const common = { path: '/', sameSite: 'lax', secure: secure(request) } as const;
  void reply.setCookie(SESSION_COOKIE, sessionId, { ...common, httpOnly: true });
  void reply.setCookie(XSRF_COOKIE_NAME, xsrfToken, { ...common, httpOnly: false });
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  const common = { path: '/', sameSite: 'lax', secure: secure(request) } as const;
  void reply.clearCookie(SESSION_COOKIE, { ...common, httpOnly: true });
  void reply.clearCookie(XSRF_COOKIE_NAME, { ...common, httpOnly: false });
}

export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies[SESSION_COOKIE];
}
