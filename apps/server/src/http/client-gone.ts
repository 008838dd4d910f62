import type { FastifyRequest } from 'fastify';

/**
 * Whether the client of this request has gone (closed its connection) while the request was being
 * worked on: then work that would change state for it (a session nobody receives) is given up.
 */
export function isClientGone(request: FastifyRequest): boolean {
  return request.raw.socket?.destroyed === true;
}
