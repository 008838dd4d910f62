import {
  CreateAndSendRequest,
  CreateCodeRequest,
  SEND_TYPE_OF_CHANNEL,
  type CreateAndSendResult,
  type CreateCodeResult,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { newId } from '../../crypto/ids.js';
import { deliveryFailed, unknownChannel } from '../../domain/api-error.js';
import { issueCode } from '../../domain/codes.js';
import { maskAddress } from '../../domain/masking.js';
import { composeCodeMessage } from '../../delivery/compose.js';
import { ok } from '../../http/envelope.js';
import { emergencyPolicy } from '../../http/policy-of.js';
import { assertOwnUserId, requireSession } from '../../http/session-guard.js';
import { signedInUser } from './user-routes.js';

/** Issuing codes: shown on screen (create) or delivered to one of the user's channels (createAndSend). */
export const codeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSession);
  const { services } = app;

  app.post('/tempPass/create', { schema: { body: CreateCodeRequest } }, async (request) => {
    assertOwnUserId(request, request.body.attrs.user.id);
    const user = signedInUser(request);
    const policy = await emergencyPolicy(services, user.id, 'screen');
    const issued = await issueCode(services.store, services.keys.codeHash, {
      userId: user.id,
      policy,
      channelType: null,
      clientAddress: request.ip,
      now: services.now(),
    });
    const fields = { id: issued.id, password: issued.code };
    const row = Object.fromEntries(request.body.return.map((field) => [field, fields[field]]));
    return ok({ rows: [row] } as CreateCodeResult);
  });

  app.post('/tempPass/createAndSend', { schema: { body: CreateAndSendRequest } }, async (request) => {
    const { user: userRef, options, locale } = request.body;
    assertOwnUserId(request, userRef.id);
    const user = signedInUser(request);
    const policy = await emergencyPolicy(services, user.id, 'channel');
    const channel = await services.store.channels.findOfUser(user.id, options.recipient);
    if (channel === undefined || SEND_TYPE_OF_CHANNEL[channel.key] !== options.channel) {
      await services.store.audit.append(
        {
          event: 'code.send_refused',
          userId: user.id,
          actor: user.id,
          clientAddress: request.ip,
          details: { channel: options.channel, reason: 'unknown-recipient' },
        },
        services.now(),
      );
      throw unknownChannel();
    }
    const provider = services.delivery(options.channel);
    if (provider === undefined) throw deliveryFailed();
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
    );
    const to = maskAddress(channel.key, channel.address);
    const outcome = await provider
      .deliver({
        channelType: options.channel,
        recipient: channel.address,
        subject: message.subject,
        text: message.text,
        userId: user.id,
        idempotencyKey: newId(),
      })
      .catch((error: unknown) => ({ ok: false as const, transient: true, reason: String(error) }));
    const audit = { userId: user.id, actor: user.id, clientAddress: request.ip };
    if (!outcome.ok) {
      // A code that did not reach its owner must not stay usable.
      await services.store.codes.invalidate(issued.id, services.now());
      await services.store.audit.append(
        {
          ...audit,
          event: 'code.delivery_failed',
          details: {
            codeId: issued.id,
            channel: options.channel,
            channelKey: channel.key,
            provider: provider.name,
            reason: outcome.reason,
          },
        },
        services.now(),
      );
      throw deliveryFailed();
    }
    await services.store.audit.append(
      {
        ...audit,
        event: 'code.sent',
        details: {
          codeId: issued.id,
          channel: options.channel,
          channelKey: channel.key,
          to,
          provider: provider.name,
        },
      },
      services.now(),
    );
    return ok({ to } satisfies CreateAndSendResult);
  });
};
