import {
  ChannelsRequest,
  EmptyRequest,
  PolicyRequest,
  UserGetRequest,
  ChannelMap,
  PolicyResult,
  UserGetResult,
  UserInfo,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notPermitted } from '../../domain/api-error.js';
import { availableChannels, userFieldsOf, userInfoOf } from '../../domain/page-answers.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { policyOf } from '../../domain/emergency-policy.js';
import { assertOwnUserId, requireSession } from '../../http/session-guard.js';
import type { User } from '../../store/store.js';
import { documented } from '../../http/route-docs.js';

export function signedInUser(request: FastifyRequest): User {
  if (request.signedIn === undefined) throw notPermitted();
  return request.signedIn.user;
}

/** Who is signed in, their locale, their policy and their channels. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSession);

  app.post(
    '/userinfo',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        body: EmptyRequest,
        ...documented({ summary: 'Who is signed in', security: 'session', result: UserInfo, bare: true }),
      },
    },
    async (request) => userInfoOf(signedInUser(request)),
  );

  app.post(
    '/user/get',
    {
      schema: {
        body: UserGetRequest,
        ...documented({
          summary: "The signed-in user's id and locale",
          security: 'session',
          result: UserGetResult,
        }),
      },
    },
    async (request) => {
      assertOwnUserId(request, request.body.match[0]?.value ?? '');
      return ok(userFieldsOf(signedInUser(request), request.body.return));
    },
  );

  app.post(
    '/user/getPolicy',
    {
      schema: {
        body: PolicyRequest,
        ...documented({
          summary: "The signed-in user's policy of a category",
          security: 'session',
          result: PolicyResult,
        }),
      },
    },
    async (request) => {
      assertOwnUserId(request, request.body.user.id);
      return ok({ options: await policyOf(app.services, request.body.user.id, request.body.category.name) });
    },
  );

  app.post(
    '/user/queryAvailableChannels',
    {
      schema: {
        body: ChannelsRequest,
        ...documented({
          summary: "The signed-in user's channels, masked, with opaque references",
          security: 'session',
          result: ChannelMap,
        }),
      },
    },
    async (request) => {
      assertOwnUserId(request, request.body.user.id);
      return ok(await availableChannels(app.services, signedInUser(request), request.ip));
    },
  );
};
