import {
  ChannelsRequest,
  EmptyRequest,
  PolicyRequest,
  UserGetRequest,
  ChannelMap,
  PolicyResult,
  REMEMBERED_DEVICE_COOKIE_NAME,
  UserGetResult,
  UserInfo,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notPermitted } from '../../domain/errors.js';
import { availableChannels, policyAnswer, userFieldsOf, userInfoOf } from '../../domain/page/page-answers.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { assertOwnUserId, requireSession } from '../../http/session-guard.js';
import type { User } from '../../store/store.js';
import { documented } from '../../http/route-docs.js';

export function signedInUser(request: FastifyRequest): User {
  if (request.signedIn === undefined) throw notPermitted();
  return request.signedIn.user;
}

/** Where a page's request comes from: its client address and its remembered-device cookie. */
export function pageRequestOf(request: FastifyRequest): {
  clientAddress: string;
  deviceCookie: string | undefined;
} {
  return { clientAddress: request.ip, deviceCookie: request.cookies[REMEMBERED_DEVICE_COOKIE_NAME] };
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
      return ok(
        await policyAnswer(
          app.services,
          request.body.user.id,
          request.body.category.name,
          pageRequestOf(request),
        ),
      );
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
      return ok(await availableChannels(app.services, signedInUser(request), pageRequestOf(request)));
    },
  );
};
