import { LOGIN_API_PASSWORD_LINK_PATH, NoResult, PasswordLinkUse } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notPermitted } from '../domain/errors.js';
import { ok } from '../http/envelope.js';
import { isOwnOrigin } from './login-routes.js';
import { documented } from '../http/route-docs.js';

/** The login application's form behind a one-time password link (domain/identity/password-links.ts). */
export const passwordLinkRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  app.post(
    LOGIN_API_PASSWORD_LINK_PATH,
    {
      schema: {
        body: PasswordLinkUse,
        ...documented({
          summary: "Set a user's password with a one-time link (used once, expiring)",
          security: 'none',
          result: NoResult,
        }),
      },
    },
    async (request, reply) => {
      // Posted from another site: refused, as the sign-in is.
      const from = request.headers.origin;
      if (from !== undefined && !isOwnOrigin(request, from)) throw notPermitted();
      await services.passwordLinks.use(request.body.token, request.body.password, request.ip);
      void reply.header('cache-control', 'no-store');
      return ok({});
    },
  );
};
