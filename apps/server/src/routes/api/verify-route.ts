import { ErrorNumber, VerifyRequest, VerifyResult } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, invalidRequest } from '../../domain/api-error.js';
import { authenticateServiceKey } from '../../domain/service-keys.js';
import { answerOrGiveBack } from '../../http/answer-or-give-back.js';
import { ok } from '../../http/envelope.js';
import { bearerToken } from '../../http/bearer.js';
import { documented } from '../../http/route-docs.js';
import { userNamed } from '../../domain/user-names.js';

const unauthorized = (): ApiError => new ApiError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 401);

/**
 * Where an issued code is used: integrators verify it with a service key. A valid code is
 * consumed; failures count toward the user's lockout (domain/verification.ts).
 */
export const verifyRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  app.post(
    '/tempPass/verify',
    {
      schema: {
        body: VerifyRequest,
        ...documented({
          summary: 'Verify (and consume) a code',
          security: 'serviceKey',
          result: VerifyResult,
        }),
      },
    },
    async (request, reply) => {
      const serviceKey = await authenticateServiceKey(
        services.store,
        services.keys,
        bearerToken(request),
        'verify',
        services.now(),
      );
      if (serviceKey === undefined) throw unauthorized();
      const { userId, username, code } = request.body;
      if ((userId === undefined) === (username === undefined))
        throw invalidRequest('give exactly one of userId and username');
      // Unknown users, wrong, expired, used and locked codes all answer { valid: false }; only
      // the audit log tells them apart.
      const user =
        userId === undefined
          ? await userNamed(services.store, username ?? '')
          : await services.store.users.findById(userId);
      const attempt = {
        actor: `service-key:${serviceKey.name}`,
        clientAddress: request.ip,
        now: services.now(),
      };
      const outcome = await services.verification.verify({ user, code, ...attempt });
      if (outcome.valid && user !== undefined)
        answerOrGiveBack(request, reply, () =>
          services.verification.giveBackUse({ userId: user.id, codeId: outcome.codeId }, attempt),
        );
      return ok({ valid: outcome.valid } satisfies VerifyResult);
    },
  );
};
