import {
  CreateAndSendRequest,
  CreateCodeRequest,
  CreateAndSendResult,
  CreateCodeResult,
  RevokeCodeRequest,
  RevokeCodeResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { revokeOwnCode } from '../../domain/codes/codes.js';
import { issueCodeOnScreen } from '../../domain/codes/issue-code.js';
import { sendCode } from '../../domain/channels/send-code.js';
import { ok } from '../../http/envelope.js';
import { assertOwnUserId, requirePageSession } from '../../http/session-guard.js';
import { pageRequestOf, signedInUser } from './user-routes.js';
import { documented } from '../../http/route-docs.js';

/**
 * Issuing codes: shown on screen (create) or delivered to one of the user's channels (createAndSend);
 * and taking back one's own unused code (revoke).
 */
export const codeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requirePageSession);
  const { services } = app;

  app.post(
    '/tempPass/create',
    {
      schema: {
        body: CreateCodeRequest,
        ...documented({
          summary: 'Issue a code shown on screen',
          security: 'session',
          result: CreateCodeResult,
        }),
      },
    },
    async (request) => {
      assertOwnUserId(request, request.body.attrs.user.id);
      const issued = await issueCodeOnScreen(services, {
        user: signedInUser(request),
        locale: request.body.attrs.locale,
        ...pageRequestOf(request),
        storedPolicies: request.signedIn?.policies,
      });
      const fields = { id: issued.id, password: issued.code };
      const row = Object.fromEntries(request.body.return.map((field) => [field, fields[field]]));
      return ok({ rows: [row] } satisfies CreateCodeResult);
    },
  );

  app.post(
    '/tempPass/revoke',
    {
      schema: {
        body: RevokeCodeRequest,
        ...documented({
          summary:
            "Take back one of the signed-in user's own unused codes (before asking for its replacement)",
          security: 'session',
          result: RevokeCodeResult,
        }),
      },
    },
    async (request) => {
      assertOwnUserId(request, request.body.user.id);
      const revoked = await revokeOwnCode(services.store, {
        userId: signedInUser(request).id,
        codeId: request.body.emergencyCodeId,
        clientAddress: request.ip,
        now: services.now(),
      });
      return ok({ revoked } satisfies RevokeCodeResult);
    },
  );

  app.post(
    '/tempPass/createAndSend',
    {
      schema: {
        body: CreateAndSendRequest,
        ...documented({
          summary: 'Issue a code and send it to one of the user’s channels',
          security: 'session',
          result: CreateAndSendResult,
        }),
      },
    },
    async (request) => {
      const { user, options, locale } = request.body;
      assertOwnUserId(request, user.id);
      const { to } = await sendCode(services, {
        user: signedInUser(request),
        channelType: options.channel,
        reference: options.recipient,
        locale,
        clientAddress: request.ip,
        log: request.log,
        page: { deviceCookie: pageRequestOf(request).deviceCookie, stored: request.signedIn?.policies },
      });
      return ok({ to } satisfies CreateAndSendResult);
    },
  );
};
