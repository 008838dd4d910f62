import type { FastifyRequest } from 'fastify';

/** The token of `Authorization: Bearer <token>`; undefined for any other header or none. */
export function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}
