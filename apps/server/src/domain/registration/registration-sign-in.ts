import { ErrorNumber, SEND_TYPE_OF_CHANNEL, type ChannelKey, type SendType } from '@dea/contract';
import { generateCode } from '../../crypto/code-generator.js';
import { newId, randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, keyedHash } from '../../crypto/keyed-hash.js';
import type { Store, User } from '../../store/store.js';
import { DomainError, deliveryFailed, tooManyRequests, unknownChannel } from '../errors.js';
import type { AuditEventName } from '../audit/audit-events.js';
import type { Catalogs } from '../texts/catalogs.js';
import { untrustedChannel } from '../channels/channel-proof.js';
import type { ChannelRegistrationConfig } from '../channels/channel-registration-settings.js';
import { channelRefusal, type ChannelRules } from '../channels/channel-rules.js';
import { maskAddress } from '../channels/masking.js';
import type { CodeDelivery } from '../ports/code-delivery.js';
import type { RememberedDevices } from '../page/remembered-devices.js';
import type { SendLimits } from '../channels/send-limits.js';

const CODE_LENGTH = 8;
const CODE_ALPHABET = '0123456789';

/** How a registration session was opened. A password alone is none of them. */
export type RegistrationMethod = 'channel-code' | 'link' | 'passkey';

export interface RegistrationSignInServices {
  store: Store;
  /** Keys of the codes', tokens' and links' hashes: the current secret's first, then the previous one's. */
  hashKeys: readonly Buffer[];
  codeDelivery: CodeDelivery;
  channelRules: ChannelRules;
  sendLimits: SendLimits;
  catalogs: Catalogs;
  config: { timeZone: string; channelRegistration: ChannelRegistrationConfig };
  /** The browser of a session just opened becomes a remembered device (remembered-devices.ts). */
  rememberedDevices: Pick<RememberedDevices, 'remember'>;
  now: () => number;
}

/**
 * A registration session just opened: its token (for the registration cookie) and, when the
 * person's policy remembers devices, the remembered-device cookie of this browser.
 */
export interface OpenedRegistration {
  token: string;
  expiresAt: number;
  device: { token: string; expiresAt: number } | undefined;
}

export interface SignedInPerson {
  /** Signed in with their password (the page's session): the first factor only. */
  user: User;
  clientAddress: string;
  locale?: string | undefined;
}

/**
 * A one-time registration link for the person, from `dea user registration-link` or the help
 * desk (`actor` says who): valid DEA_REGISTRATION_LINK_HOURS, for this person only, kept as a
 * keyed hash; it ends the person's earlier unused links. The one function every door calls.
 */
export async function issueRegistrationLink(
  services: Pick<RegistrationSignInServices, 'store' | 'hashKeys' | 'now'> & {
    config: { channelRegistration: Pick<ChannelRegistrationConfig, 'channelsUrl' | 'registrationLinkMs'> };
  },
  user: User,
  actor: string,
): Promise<{ url: string; expiresAt: number }> {
  const { now, config } = services;
  const token = randomToken(32);
  const at = now();
  const expiresAt = at + config.channelRegistration.registrationLinkMs;
  // The newest link is the only one: the person's earlier unused links end with it. The person's
  // row, held to the end, makes two links issued at once end one another in turn.
  await services.store.transaction(async (store) => {
    await store.users.findForChange(user.id);
    const earlierRevoked = await store.registration.revokeLinks(user.id, at);
    await store.registration.addLink({
      tokenHash: keyedHash(services.hashKeys[0]!, 'registration-link', token),
      userId: user.id,
      createdBy: actor,
      createdAt: at,
      expiresAt,
    });
    await store.audit.append(
      {
        event: 'registration.link_issued',
        userId: user.id,
        actor,
        details: { expiresAt: new Date(expiresAt).toISOString(), earlierRevoked },
      },
      at,
    );
  });
  return { url: `${config.channelRegistration.channelsUrl}#link=${token}`, expiresAt };
}

/** Error 3 saying which strong sign-ins open the registration. */
export const registrationSignInNeeded = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.registrationSignInNeeded');

/**
 * The strong sign-in that opens the registration of channels, one rule for every door:
 * a person signed in with their password (one factor) adds a second, either a code sent to one of
 * their channels that may receive emergency codes now (proven, past its cooling-off time), a
 * one-time registration link the help desk or an administrator made for them, or a passkey they
 * registered earlier (user-passkeys.ts, which opens through `openAfter`). Each opens a
 * registration session for DEA_REGISTRATION_SESSION_MINUTES, whose token the door keeps in an
 * HTTP-only cookie; the store keeps keyed hashes only.
 */
export class RegistrationSignIn {
  constructor(private readonly services: RegistrationSignInServices) {}

  private audit(
    person: SignedInPerson,
    event: AuditEventName,
    details: Record<string, unknown>,
    actor: string = person.user.id,
  ): Promise<void> {
    return this.services.store.audit.append(
      { event, userId: person.user.id, actor, clientAddress: person.clientAddress, details },
      this.services.now(),
    );
  }

  /**
   * The channels a code that opens the registration may go to now (what `challenge` would take):
   * the channels page offers them, masked, with their opaque references.
   */
  async channelsForChallenge(
    user: User,
  ): Promise<{ reference: string; key: ChannelKey; type: SendType; to: string }[]> {
    const usable = [];
    for (const channel of await this.services.store.channels.listOfUser(user.id)) {
      const type = SEND_TYPE_OF_CHANNEL[channel.key];
      if (channelRefusal(this.services.channelRules, type, channel.address) !== undefined) continue;
      if (this.services.codeDelivery.senderOf(type) === undefined) continue;
      if ((await untrustedChannel(this.services, channel)) !== undefined) continue;
      usable.push({
        reference: channel.id,
        key: channel.key,
        type,
        to: maskAddress(channel.key, channel.address),
      });
    }
    return usable;
  }

  /** Sends a code to one of the person's usable channels (its opaque reference). */
  async challenge(
    person: SignedInPerson & { reference: string },
  ): Promise<{ challengeId: string; to: string; expiresAt: number }> {
    const { store, now, config } = this.services;
    const { user } = person;
    const refuse = async (reason: string, error: DomainError, more: Record<string, unknown> = {}) => {
      await this.audit(person, 'registration.refused', { method: 'channel-code', reason, ...more });
      return error;
    };
    const channel = await store.channels.findOfUser(user.id, person.reference);
    if (channel === undefined) throw await refuse('unknown-recipient', unknownChannel());
    const type = SEND_TYPE_OF_CHANNEL[channel.key];
    const to = maskAddress(channel.key, channel.address);
    // Only a channel an emergency code could go to now: a new one still cooling off proves nothing.
    const unusable =
      channelRefusal(this.services.channelRules, type, channel.address) ??
      (await untrustedChannel(this.services, channel));
    const sender = this.services.codeDelivery.senderOf(type);
    if (unusable !== undefined || sender === undefined)
      throw await refuse('unusable-channel', unknownChannel(), {
        channelKey: channel.key,
        to,
        cause: unusable ?? 'channel-type-disabled',
      });
    const permit = await this.services.sendLimits.take(
      { userId: user.id, channelType: type, recipient: channel.address, clientAddress: person.clientAddress },
      now(),
    );
    if (!permit.allowed)
      throw await refuse('rate-limit', tooManyRequests(permit.retryAfterSeconds), {
        channelKey: channel.key,
        limit: permit.scope,
        retryAfterSeconds: permit.retryAfterSeconds,
      });
    const code = generateCode(CODE_LENGTH, CODE_ALPHABET);
    const challengeId = newId();
    const at = now();
    const expiresAt = at + config.channelRegistration.proofMs;
    await store.registration.addChallenge({
      id: challengeId,
      userId: user.id,
      method: 'channel-code',
      channelId: channel.id,
      codeHash: this.hash(this.services.hashKeys[0]!, 'registration-code', challengeId, code),
      triesLeft: config.channelRegistration.proofTries,
      createdAt: at,
      expiresAt,
    });
    const outcome = await sender.send({
      channelType: type,
      recipient: channel.address,
      code,
      expiresAt,
      language: await this.services.catalogs.choose([person.locale, user.locale]),
      timeZone: user.timeZone ?? config.timeZone,
      userId: user.id,
      purpose: 'registration',
    });
    if (!outcome.ok)
      throw await refuse('delivery-failed', deliveryFailed(), {
        channelKey: channel.key,
        cause: outcome.reason,
      });
    await this.audit(person, 'registration.challenge_sent', {
      channelKey: channel.key,
      channel: type,
      to,
      challengeId,
      provider: sender.name,
    });
    return { challengeId, to, expiresAt };
  }

  /**
   * The code of a challenge typed back: each try taken in one statement before the compare, and
   * of two right answers at once one opens the session. Answers the session's token.
   */
  async openWithCode(
    person: SignedInPerson & { challengeId: string; code: string },
  ): Promise<OpenedRegistration> {
    const { store, now } = this.services;
    const { user } = person;
    const checkedAt = now();
    const refuse = async (reason: string, more: Record<string, unknown> = {}) => {
      await this.audit(person, 'registration.refused', {
        method: 'channel-code',
        reason,
        challengeId: person.challengeId,
        ...more,
      });
      return registrationSignInNeeded();
    };
    const taken = await store.registration.takeChallengeTry(user.id, person.challengeId, now());
    if (taken === undefined) {
      const found = await store.registration.findChallenge(user.id, person.challengeId);
      throw await refuse(
        found === undefined || found.openedAt !== null
          ? 'unknown'
          : found.expiresAt <= now()
            ? 'expired'
            : 'no-tries',
      );
    }
    const typed = person.code.replace(/[\s-]/g, '');
    const right = this.services.hashKeys.some((key) =>
      constantTimeEqual(this.hash(key, 'registration-code', taken.id, typed), taken.codeHash ?? ''),
    );
    if (!right) throw await refuse('wrong-code', { triesLeft: taken.triesLeft });
    const token = randomToken(32);
    const at = now();
    const expiresAt = at + this.services.config.channelRegistration.registrationSessionMs;
    const tokenHash = this.hash(this.services.hashKeys[0]!, 'registration-session', token);
    if (!(await store.registration.openChallenge(taken.id, tokenHash, at, expiresAt)))
      throw await refuse('taken-meanwhile');
    await this.audit(person, 'registration.opened', {
      method: 'channel-code',
      sessionId: taken.id,
      expiresAt: new Date(expiresAt).toISOString(),
    });
    const device = await this.services.rememberedDevices.remember(person, 'channel-code');
    await this.refuseIfUndone(person, 'channel-code', checkedAt);
    return { token, expiresAt, device };
  }

  /** A one-time registration link for the person (registrationLink, the one function of every door). */
  issueLink(user: User, actor: string): Promise<{ url: string; expiresAt: number }> {
    return issueRegistrationLink(this.services, user, actor);
  }

  /** A registration link used by the person it was made for, once. Answers the session's token. */
  async openWithLink(person: SignedInPerson & { link: string }): Promise<OpenedRegistration> {
    const { store, now, hashKeys } = this.services;
    const at = now();
    const used = await store.registration.useLink(
      person.user.id,
      hashKeys.map((key) => this.hash(key, 'registration-link', person.link)),
      at,
    );
    if (!used) {
      await this.audit(person, 'registration.refused', { method: 'link', reason: 'link-unusable' });
      throw registrationSignInNeeded();
    }
    return this.openAfter(person, 'link', {}, at);
  }

  /**
   * Opens a registration session once the caller checked its strong sign-in itself (a link used
   * above, a passkey in user-passkeys.ts), audited with `details`. Answers the session's token and the remembered device's.
   */
  async openAfter(
    person: SignedInPerson,
    method: Exclude<RegistrationMethod, 'channel-code'>,
    details: Record<string, unknown> = {},
    /** When the caller began to check the sign-in: an undo since then leaves nothing open. */
    checkedAt: number = this.services.now(),
  ): Promise<OpenedRegistration> {
    const { store, now, hashKeys } = this.services;
    const at = now();
    const token = randomToken(32);
    const expiresAt = at + this.services.config.channelRegistration.registrationSessionMs;
    const sessionId = newId();
    await store.registration.addOpen({
      id: sessionId,
      userId: person.user.id,
      method,
      channelId: null,
      tokenHash: this.hash(hashKeys[0]!, 'registration-session', token),
      createdAt: at,
      expiresAt,
      openedAt: at,
    });
    await this.audit(person, 'registration.opened', {
      method,
      ...details,
      sessionId,
      expiresAt: new Date(expiresAt).toISOString(),
    });
    const device = await this.services.rememberedDevices.remember(person, method);
    await this.refuseIfUndone(person, method, checkedAt);
    return { token, expiresAt, device };
  }

  /**
   * "This was not me" used since the sign-in was checked: what this sign-in opened (its session, its
   * remembered device) ends, and it is refused. The undo holds the person's row and writes its entry
   * in its transaction, so asked with the row held this is exact: an undo after the check ends the
   * session and device itself.
   */
  private async refuseIfUndone(person: SignedInPerson, method: RegistrationMethod, checkedAt: number) {
    const { store, now } = this.services;
    const userId = person.user.id;
    const undone = await store.transaction(async (trx) => {
      await trx.users.findForChange(userId);
      // After the check began (an undo in the same millisecond counts as before it).
      const [entry] = await trx.audit.list({
        userId,
        event: 'channel.registration_undone',
        since: checkedAt + 1,
        limit: 1,
      });
      if (entry === undefined) return false;
      await trx.registration.endAllOfUser(userId, now());
      await trx.rememberedDevices.forgetSince(userId, checkedAt, now());
      return true;
    });
    if (!undone) return;
    await this.audit(person, 'registration.refused', { method, reason: 'undone-meanwhile' });
    throw registrationSignInNeeded();
  }

  /** Whether the token is an open registration session of this person (refused with error 3 when not). */
  async require(user: User, token: string | undefined): Promise<{ method: string; expiresAt: number }> {
    if (token === undefined || token === '') throw registrationSignInNeeded();
    const session = await this.services.store.registration.findOpen(
      user.id,
      this.services.hashKeys.map((key) => this.hash(key, 'registration-session', token)),
      this.services.now(),
    );
    if (session === undefined) throw registrationSignInNeeded();
    return { method: session.method, expiresAt: session.expiresAt };
  }

  private hash(key: Buffer, purpose: string, ...parts: string[]): string {
    return keyedHash(key, purpose, ...parts);
  }
}
