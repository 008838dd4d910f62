import type { AuditEventName } from '../audit/audit-events.js';
import { SEND_TYPE_OF_CHANNEL, type SendType } from '@dea/contract';
import { deliveryFailed, tooManyRequests, unknownChannel } from '../errors.js';
import { untrustedChannel } from './channel-proof.js';
import { channelRefusal, type ChannelRules } from './channel-rules.js';
import { issueCode } from '../codes/codes.js';
import { emergencyPolicy } from '../policies/emergency-policy.js';
import type { CodeServices } from '../codes/issue-code.js';
import { maskAddress } from './masking.js';
import type { CodeDelivery } from '../ports/code-delivery.js';
import type { SendLimits } from './send-limits.js';
import type { User } from '../../store/store.js';
import type { PoliciesReadWithSession } from '../page/sessions.js';

/** What sending a code needs besides issuing it: delivery (a port), channel rules, limits. */
export interface SendCodeServices extends CodeServices {
  codeDelivery: CodeDelivery;
  channelRules: ChannelRules;
  sendLimits: SendLimits;
}

export interface SendRequest {
  user: User;
  channelType: SendType;
  /** The opaque recipient reference of one of the user's own channels. */
  reference: string;
  locale: string | undefined;
  clientAddress: string;
  /** Where a failed delivery's cause is told to the operator. */
  log: { warn(details: Record<string, unknown>, message: string): void };
  /** Who asks, when not the user themself (a help-desk agent: console:<account>). */
  actor?: string;
  /** What the code's audit entry records besides (the agent's reason). */
  details?: Record<string, unknown>;
  /**
   * Asked from the page: its remembered-device cookie. Where no reason to trust a code on screen
   * holds, a policy that shows codes on screen sends them by channel (screen-code-trust.ts).
   */
  page?: {
    deviceCookie: string | undefined;
    /** The page policies as read with the session, when they were (emergency-policy.ts). */
    stored?: PoliciesReadWithSession | undefined;
  };
}

/**
 * A code sent to one of the user's channels (tempPass/createAndSend). In this order, each step
 * audited: the policy must send by channel; the reference must be the user's own channel of that
 * type, usable now (130 otherwise); the send limits are taken before any code exists (140); the
 * code is issued, composed in the user's language and time zone, and delivered with retries. A
 * code that did not arrive is invalidated (150); one that did is announced to the other channels.
 */
export async function sendCode(services: SendCodeServices, request: SendRequest): Promise<{ to: string }> {
  const { user, channelType, clientAddress } = request;
  const audit = (event: AuditEventName, details: Record<string, unknown>) =>
    services.store.audit.append(
      { event, userId: user.id, actor: request.actor ?? user.id, clientAddress, details },
      services.now(),
    );
  const policy = await emergencyPolicy(
    services,
    user.id,
    'channel',
    clientAddress,
    request.actor,
    request.page && {
      clientAddress,
      deviceCookie: request.page.deviceCookie,
      devices: services.rememberedDevices,
      stored: request.page.stored,
    },
  );
  const channel = await services.store.channels.findOfUser(user.id, request.reference);
  if (channel === undefined || SEND_TYPE_OF_CHANNEL[channel.key] !== channelType) {
    await audit('code.send_refused', { channel: channelType, reason: 'unknown-recipient' });
    throw unknownChannel();
  }
  const to = maskAddress(channel.key, channel.address);
  const attempted = { channel: channelType, channelKey: channel.key, to };
  // A switched-off type or a foreign number is, for this user, not a usable recipient: the same
  // answer as an unknown one (130), and queryAvailableChannels no longer lists it.
  const refusal =
    channelRefusal(services.channelRules, channelType, channel.address) ??
    (await untrustedChannel(services, channel));
  const provider = services.codeDelivery.senderOf(channelType);
  if (refusal !== undefined || provider === undefined) {
    await audit('code.send_refused', { ...attempted, reason: refusal ?? 'channel-type-disabled' });
    throw unknownChannel();
  }
  // Limits come before the code: a refused request issues nothing.
  const permit = await services.sendLimits.take(
    { userId: user.id, channelType, recipient: channel.address, clientAddress },
    services.now(),
  );
  if (!permit.allowed) {
    await audit('code.send_refused', {
      ...attempted,
      reason: 'rate-limit',
      limit: permit.scope,
      retryAfterSeconds: permit.retryAfterSeconds,
    });
    throw tooManyRequests(permit.retryAfterSeconds);
  }
  const issued = await issueCode(services.store, services.keys.codeHash, {
    userId: user.id,
    policy,
    channelType,
    clientAddress,
    now: services.now(),
    ...(request.actor !== undefined && { actor: request.actor }),
    ...(request.details !== undefined && { details: request.details }),
  });
  const language = await services.catalogs.choose([request.locale, user.locale]);
  const timeZone = user.timeZone ?? services.config.timeZone;
  const outcome = await provider.send({
    channelType,
    recipient: channel.address,
    code: issued.code,
    expiresAt: issued.expiresAt,
    language,
    timeZone,
    userId: user.id,
  });
  const details = { codeId: issued.id, ...attempted, provider: provider.name, attempts: outcome.attempts };
  if (!outcome.ok) {
    // The operator's clue: which provider failed and why (codes of errors only, never the code
    // or the full address).
    request.log.warn(
      { ...attempted, provider: provider.name, attempts: outcome.attempts, reason: outcome.reason },
      'delivery failed',
    );
    // A code that did not reach its owner must not stay usable (nor one that arrives late).
    await services.store.codes.invalidate(issued.id, services.now());
    await audit('code.delivery_failed', { ...details, reason: outcome.reason });
    throw deliveryFailed();
  }
  await audit('code.sent', details);
  services.notices.notify({
    userId: user.id,
    codeId: issued.id,
    sentTo: channel,
    channels: issued.channels,
    language,
    timeZone,
    at: services.now(),
    clientAddress,
  });
  return { to };
}
