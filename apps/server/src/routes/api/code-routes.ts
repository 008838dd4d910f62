import {
  CreateAndSendRequest,
  CreateCodeRequest,
  SEND_TYPE_OF_CHANNEL,
  type CreateAndSendResult,
  type CreateCodeResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { newId } from '../../crypto/ids.js';
import { deliveryFailed, tooManyRequests, unknownChannel } from '../../domain/api-error.js';
import { channelRefusal } from '../../domain/channel-rules.js';
import { issueCode } from '../../domain/codes.js';
import { maskAddress } from '../../domain/masking.js';
import { composeCodeMessage } from '../../delivery/compose.js';
import { deliverWithRetry } from '../../delivery/retrying-delivery.js';
import { ok } from '../../http/envelope.js';
import { emergencyPolicy } from '../../http/policy-of.js';
import { assertOwnUserId, requireSession } from '../../http/session-guard.js';
import type { Services } from '../../http/types.js';
import { signedInUser } from './user-routes.js';

async function refuseSend(
  services: Services,
  request: FastifyRequest,
  userId: string,
  details: Record<string, unknown>,
): Promise<void> {
  await services.store.audit.append(
    { event: 'code.send_refused', userId, actor: userId, clientAddress: request.ip, details },
    services.now(),
  );
}

/** Issuing codes: shown on screen (create) or delivered to one of the user's channels (createAndSend). */
export const codeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSession);
  const { services } = app;

  app.post('/tempPass/create', { schema: { body: CreateCodeRequest } }, async (request) => {
    assertOwnUserId(request, request.body.attrs.user.id);
    const user = signedInUser(request);
    const policy = await emergencyPolicy(services, user.id, 'screen', request.ip);
    const issued = await issueCode(services.store, services.keys.codeHash, {
      userId: user.id,
      policy,
      channelType: null,
      clientAddress: request.ip,
      now: services.now(),
    });
    services.notices.notify({
      userId: user.id,
      codeId: issued.id,
      sentTo: null,
      language: await services.catalogs.choose([request.body.attrs.locale, user.locale]),
      timeZone: user.timeZone ?? services.config.timeZone,
      at: services.now(),
      clientAddress: request.ip,
    });
    const fields = { id: issued.id, password: issued.code };
    const row = Object.fromEntries(request.body.return.map((field) => [field, fields[field]]));
    return ok({ rows: [row] } as CreateCodeResult);
  });

  app.post('/tempPass/createAndSend', { schema: { body: CreateAndSendRequest } }, async (request) => {
    const { user: userRef, options, locale } = request.body;
    assertOwnUserId(request, userRef.id);
    const user = signedInUser(request);
    const policy = await emergencyPolicy(services, user.id, 'channel', request.ip);
    const channel = await services.store.channels.findOfUser(user.id, options.recipient);
    if (channel === undefined || SEND_TYPE_OF_CHANNEL[channel.key] !== options.channel) {
      await refuseSend(services, request, user.id, { channel: options.channel, reason: 'unknown-recipient' });
      throw unknownChannel();
    }
    const to = maskAddress(channel.key, channel.address);
    // A switched-off type or a foreign number is, for this user, not a usable recipient: the same
    // answer as an unknown one (130), and queryAvailableChannels no longer lists it.
    const refusal = channelRefusal(services.channelRules, options.channel, channel.address);
    const provider = services.delivery(options.channel);
    if (refusal !== undefined || provider === undefined) {
      await refuseSend(services, request, user.id, {
        channel: options.channel,
        channelKey: channel.key,
        to,
        reason: refusal ?? 'channel-type-disabled',
      });
      throw unknownChannel();
    }
    // Limits come before the code: a refused request issues nothing.
    const permit = await services.sendLimits.take(
      {
        userId: user.id,
        channelType: options.channel,
        recipient: channel.address,
        clientAddress: request.ip,
      },
      services.now(),
    );
    if (!permit.allowed) {
      await refuseSend(services, request, user.id, {
        channel: options.channel,
        channelKey: channel.key,
        to,
        reason: 'rate-limit',
        limit: permit.scope,
        retryAfterSeconds: permit.retryAfterSeconds,
      });
      throw tooManyRequests(permit.retryAfterSeconds);
    }
    const issued = await issueCode(services.store, services.keys.codeHash, {
      userId: user.id,
      policy,
      channelType: options.channel,
      clientAddress: request.ip,
      now: services.now(),
    });
    const language = await services.catalogs.choose([locale, user.locale]);
    const message = await composeCodeMessage(
      services.catalogs,
      language,
      options.channel,
      issued.code,
      issued.expiresAt,
      user.timeZone ?? services.config.timeZone,
    );
    const outcome = await deliverWithRetry(
      provider,
      {
        channelType: options.channel,
        recipient: channel.address,
        ...message,
        language,
        userId: user.id,
        idempotencyKey: newId(),
      },
      services.config.delivery.attempt,
    );
    const audit = { userId: user.id, actor: user.id, clientAddress: request.ip };
    const details = {
      codeId: issued.id,
      channel: options.channel,
      channelKey: channel.key,
      to,
      provider: provider.name,
      attempts: outcome.attempts,
    };
    if (!outcome.ok) {
      // The operator's clue: which provider failed and why (codes of errors only, never the code
      // or the full address).
      request.log.warn(
        {
          channel: options.channel,
          provider: provider.name,
          attempts: outcome.attempts,
          reason: outcome.reason,
          to,
        },
        'delivery failed',
      );
      // A code that did not reach its owner must not stay usable (nor one that arrives late).
      await services.store.codes.invalidate(issued.id, services.now());
      await services.store.audit.append(
        { ...audit, event: 'code.delivery_failed', details: { ...details, reason: outcome.reason } },
        services.now(),
      );
      throw deliveryFailed();
    }
    await services.store.audit.append({ ...audit, event: 'code.sent', details }, services.now());
    services.notices.notify({
      userId: user.id,
      codeId: issued.id,
      sentTo: channel,
      language,
      timeZone: user.timeZone ?? services.config.timeZone,
      at: services.now(),
      clientAddress: request.ip,
    });
    return ok({ to } satisfies CreateAndSendResult);
  });
};
