import {
  ChannelsRequest,
  EmptyRequest,
  PolicyRequest,
  UserGetRequest,
  SEND_TYPE_OF_CHANNEL,
  joinChannelValue,
  ChannelMap,
  PolicyResult,
  UserGetResult,
  UserInfo,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notPermitted } from '../../domain/api-error.js';
import { channelRefusal } from '../../domain/channel-rules.js';
import { maskAddress } from '../../domain/masking.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { emergencyPolicy, policyOf } from '../../domain/emergency-policy.js';
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
    async (request) => {
      const user = signedInUser(request);
      return {
        fullName: user.fullName,
        lastLogin: user.lastLoginAt === null ? null : new Date(user.lastLoginAt).toISOString(),
        userId: user.id,
        userLocale: user.locale,
      } satisfies UserInfo;
    },
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
      const user = signedInUser(request);
      const fields = { id: user.id, userLocale: user.locale };
      return ok(Object.fromEntries(request.body.return.map((field) => [field, fields[field]])));
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
      const user = signedInUser(request);
      await emergencyPolicy(app.services, user.id, 'channel', request.ip);
      const map: ChannelMap = {};
      for (const channel of await app.services.store.channels.listOfUser(user.id)) {
        // Only channels a code can go to: not a switched-off type, not a number outside the allowed prefixes.
        if (channelRefusal(app.services.channelRules, SEND_TYPE_OF_CHANNEL[channel.key], channel.address))
          continue;
        map[channel.key] = joinChannelValue(maskAddress(channel.key, channel.address), channel.id);
      }
      return ok(map);
    },
  );
};
