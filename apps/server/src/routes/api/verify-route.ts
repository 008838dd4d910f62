import { ErrorNumber, VerifyHeaders, VerifyRequest, VerifyResult } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DomainError, invalidRequest } from '../../domain/errors.js';
import { authenticateServiceKeyWithUser } from '../../domain/codes/service-keys.js';
import { HttpRefusal, ok } from '../../http/envelope.js';
import { bearerToken } from '../../http/bearer.js';
import { verifiedOnce } from '../../http/idempotency-key.js';
import { documented } from '../../http/route-docs.js';

const unauthorized = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 'unauthenticated');

/**
 * Where an issued code is used: integrators verify it with a service key. A valid code is
 * consumed; failures count toward the user's lockout (domain/codes/verification.ts).
 */
export const verifyRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  app.post(
    '/tempPass/verify',
    {
      schema: {
        body: VerifyRequest,
        headers: VerifyHeaders,
        ...documented({
          summary: 'Verify (and consume) a code',
          security: 'serviceKey',
          result: VerifyResult,
          idempotent: true,
        }),
      },
    },
    async (request, reply) => {
      const { userId, username, code } = request.body;
      // The key and the user it verifies for are read together (one round trip on PostgreSQL).
      const authenticated = await authenticateServiceKeyWithUser(
        services.store,
        services.keys,
        bearerToken(request),
        'verify',
        services.now(),
        { userId, username },
      );
      if (authenticated === undefined) throw unauthorized();
      const { serviceKey, user } = authenticated;
      if ((userId === undefined) === (username === undefined))
        throw invalidRequest('give exactly one of userId and username');
      // Unknown users, wrong, expired, used and locked codes all answer { valid: false }; only
      // the audit log tells them apart.
      const attempt = {
        actor: `service-key:${serviceKey.name}`,
        clientAddress: request.ip,
        now: services.now(),
      };
      const once = await verifiedOnce(
        request,
        reply,
        services,
        {
          caller: `service-key:${serviceKey.id}`,
          user: userId === undefined ? `name:${username ?? ''}` : `id:${userId}`,
          fields: { userId, username, code },
          userId: user?.id,
          attempt,
        },
        () => services.verification.verify({ user, code, ...attempt }),
      );
      if ('refused' in once) {
        const { status, message } = once.refused;
        throw new HttpRefusal(message, status);
      }
      return ok({ valid: once.valid } satisfies VerifyResult);
    },
  );
};
