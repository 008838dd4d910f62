import type { FastifyRequest } from 'fastify';
import type { RelyingParty } from '../domain/console/console-auth.js';

/**
 * The origin and host name the browser reached: where a passkey made through this request
 * belongs (the RP ID), for the console's passkeys and people's own alike. No setting: behind a
 * proxy, Fastify's trustProxy (DEA_TRUST_PROXY) gives the host and protocol the browser used.
 */
export const relyingParty = (request: FastifyRequest): RelyingParty => ({
  origin: `${request.protocol}://${request.host}`,
  rpId: request.hostname,
});
