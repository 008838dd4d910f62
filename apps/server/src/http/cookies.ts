import '@fastify/cookie';
import {
  CONSOLE_SESSION_COOKIE_NAME,
  CONSOLE_TOKEN_COOKIE_NAME,
  CONSOLE_TOKEN_HEADER_NAME,
  XSRF_COOKIE_NAME,
  XSRF_COOKIE_NAME_TLS,
} from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'dea_session';
/** Behind TLS the cookies carry the __Host- prefix: Secure, path /, no Domain, so no sibling host can set them. */
export const SESSION_COOKIE_TLS = `__Host-${SESSION_COOKIE}`;

function secure(request: FastifyRequest): boolean {
  const setting = request.server.services.config.cookieSecure;
  return setting === 'always' || (setting === 'auto' && request.protocol === 'https');
}

/** The cookie names of this request: __Host- prefixed when the cookies are Secure. */
function namesOf(request: FastifyRequest): { session: string; xsrf: string } {
  return secure(request)
    ? { session: SESSION_COOKIE_TLS, xsrf: XSRF_COOKIE_NAME_TLS }
    : { session: SESSION_COOKIE, xsrf: XSRF_COOKIE_NAME };
}

/** The session cookie is HttpOnly; the token cookie is readable by the page, which echoes it. */
export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  xsrfToken: string,
): void {
  const names = namesOf(request);
  const common = { path: '/', sameSite: 'lax', secure: secure(request) } as const;
  void reply.setCookie(names.session, sessionId, { ...common, httpOnly: true });
  void reply.setCookie(names.xsrf, xsrfToken, { ...common, httpOnly: false });
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  const names = namesOf(request);
  const common = { path: '/', sameSite: 'lax', secure: secure(request) } as const;
  void reply.clearCookie(names.session, { ...common, httpOnly: true });
  void reply.clearCookie(names.xsrf, { ...common, httpOnly: false });
}

/** Only the cookie of this request's name counts: over TLS a plain-named one may have been planted. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies[namesOf(request).session];
}

/** The console's cookies: its own session, and the token its page echoes in X-Console-Token. */
const CONSOLE_COOKIE = CONSOLE_SESSION_COOKIE_NAME;
const CONSOLE_TOKEN_COOKIE = CONSOLE_TOKEN_COOKIE_NAME;
export const CONSOLE_TOKEN_HEADER = CONSOLE_TOKEN_HEADER_NAME.toLowerCase();

function consoleNamesOf(request: FastifyRequest): { session: string; token: string } {
  return secure(request)
    ? { session: `__Host-${CONSOLE_COOKIE}`, token: `__Host-${CONSOLE_TOKEN_COOKIE}` }
    : { session: CONSOLE_COOKIE, token: CONSOLE_TOKEN_COOKIE };
}

/** Strict: the console is never reached from another site's link with its session. */
export function setConsoleCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  token: string,
): void {
  const names = consoleNamesOf(request);
  const common = { path: '/', sameSite: 'strict', secure: secure(request) } as const;
  void reply.setCookie(names.session, sessionId, { ...common, httpOnly: true });
  void reply.setCookie(names.token, token, { ...common, httpOnly: false });
}

export function clearConsoleCookies(request: FastifyRequest, reply: FastifyReply): void {
  const names = consoleNamesOf(request);
  const common = { path: '/', sameSite: 'strict', secure: secure(request) } as const;
  void reply.clearCookie(names.session, { ...common, httpOnly: true });
  void reply.clearCookie(names.token, { ...common, httpOnly: false });
}

export function consoleSessionOf(request: FastifyRequest): string | undefined {
  return request.cookies[consoleNamesOf(request).session];
}

/**
 * The console's OpenID sign-in under way: binds the provider's answer to the browser that began
 * it. Lax, unlike the console's own cookies: the provider sends the browser back by a top-level
 * navigation from its own site, which a Strict cookie would not follow. Ten minutes, then gone.
 */
const consoleOidcFlowName = (request: FastifyRequest) =>
  secure(request) ? `__Host-${CONSOLE_COOKIE}_oidc` : `${CONSOLE_COOKIE}_oidc`;

export function setConsoleOidcFlowCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  void reply.setCookie(consoleOidcFlowName(request), token, {
    path: '/',
    sameSite: 'lax',
    secure: secure(request),
    httpOnly: true,
    maxAge: maxAgeSeconds,
  });
}

export function clearConsoleOidcFlowCookie(request: FastifyRequest, reply: FastifyReply): void {
  void reply.clearCookie(consoleOidcFlowName(request), {
    path: '/',
    sameSite: 'lax',
    secure: secure(request),
    httpOnly: true,
  });
}

export function consoleOidcFlowOf(request: FastifyRequest): string | undefined {
  return request.cookies[consoleOidcFlowName(request)];
}
