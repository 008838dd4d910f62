import { ErrorNumber, VerifyRequest, type VerifyResult } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/api-error.js';
import { consumeMatchingCode } from '../../domain/codes.js';
import { authenticateServiceKey } from '../../domain/service-keys.js';
import { ok } from '../../http/envelope.js';
import { policyOf } from '../../http/policy-of.js';

const unauthorized = (): ApiError => new ApiError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 401);

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Where an issued code is used: integrators verify it with a service key. A valid code is consumed. */
export const verifyRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  app.post('/tempPass/verify', { schema: { body: VerifyRequest } }, async (request) => {
    const serviceKey = await authenticateServiceKey(
      services.store,
      services.keys.serviceKey,
      bearer(request),
      'verify',
    );
    if (serviceKey === undefined) throw unauthorized();
    const { userId, code } = request.body;
    const now = services.now();
    const user = await services.store.users.findById(userId);
    const policy = await policyOf(services, userId);
    const codeId =
      user === undefined || user.disabled
        ? undefined
        : await consumeMatchingCode(
            services.store,
            services.keys.codeHash,
            userId,
            code,
            policy.codeAlphabet,
            now,
          );
    await services.store.audit.append(
      {
        event: codeId === undefined ? 'code.verify_failed' : 'code.used',
        userId: user === undefined ? null : userId,
        actor: `service-key:${serviceKey.name}`,
        clientAddress: request.ip,
        details: codeId === undefined ? {} : { codeId },
      },
      now,
    );
    return ok({ valid: codeId !== undefined } satisfies VerifyResult);
  });
};
