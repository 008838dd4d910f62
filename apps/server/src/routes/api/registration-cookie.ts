import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The registration session's token in its HTTP-only cookie, for the channels page's calls only. */
export function registrationCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  expiresAt: number,
): void {
  const setting = request.server.services.config.cookieSecure;
  void reply.setCookie(REGISTRATION_COOKIE_NAME, token, {
    path: '/dea/',
    httpOnly: true,
    sameSite: 'strict',
    secure: setting === 'always' || (setting === 'auto' && request.protocol === 'https'),
    expires: new Date(expiresAt),
  });
}
