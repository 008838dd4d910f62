import {
  CreateAndSendRequest,
  CreateCodeRequest,
  CreateAndSendResult,
  CreateCodeResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { issueCodeOnScreen } from '../../domain/issue-code.js';
import { sendCode } from '../../domain/send-code.js';
import { ok } from '../../http/envelope.js';
import { assertOwnUserId, requireSession } from '../../http/session-guard.js';
import { signedInUser } from './user-routes.js';
import { documented } from '../../http/route-docs.js';

/** Issuing codes: shown on screen (create) or delivered to one of the user's channels (createAndSend). */
export const codeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSession);
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
        clientAddress: request.ip,
      });
      const fields = { id: issued.id, password: issued.code };
      const row = Object.fromEntries(request.body.return.map((field) => [field, fields[field]]));
      return ok({ rows: [row] } satisfies CreateCodeResult);
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
      });
      return ok({ to } satisfies CreateAndSendResult);
    },
  );
};
