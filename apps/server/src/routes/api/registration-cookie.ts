import { REGISTRATION_COOKIE_NAME, REMEMBERED_DEVICE_COOKIE_NAME } from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenedRegistration } from '../../domain/registration/registration-sign-in.js';

function cookieOptions(request: FastifyRequest, expiresAt: number) {
  const setting = request.server.services.config.cookieSecure;
  return {
    path: '/dea/',
    httpOnly: true,
    sameSite: 'strict',
    secure: setting === 'always' || (setting === 'auto' && request.protocol === 'https'),
    expires: new Date(expiresAt),
  } as const;
}

/**
 * The cookies of a registration session just opened, for the channels page's calls only: the
 * session's token (HTTP-only), and the remembered device's when the person's policy remembers
 * devices (domain/page/remembered-devices.ts).
 */
export function registrationCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  opened: OpenedRegistration,
): void {
  void reply.setCookie(REGISTRATION_COOKIE_NAME, opened.token, cookieOptions(request, opened.expiresAt));
  if (opened.device !== undefined)
    void reply.setCookie(
      REMEMBERED_DEVICE_COOKIE_NAME,
      opened.device.token,
      cookieOptions(request, opened.device.expiresAt),
    );
}
