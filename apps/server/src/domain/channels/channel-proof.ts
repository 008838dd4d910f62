import { RuleError } from '../rule-error.js';
import {
  ChannelRegistrationPolicyOptions,
  DEFAULT_CHANNEL_REGISTRATION_POLICY,
  ErrorNumber,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  SEND_TYPE_OF_CHANNEL,
  type ChannelKey,
  type SendType,
} from '@dea/contract';
import Value from 'typebox/value';
import { generateCode } from '../../crypto/code-generator.js';
import { newId, randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, keyedHash } from '../../crypto/keyed-hash.js';
import type { BlockedAddress, Channel, ChannelProof, Store, User, UserSource } from '../../store/store.js';
import { DomainError, deliveryFailed, invalidRequest, tooManyRequests, unknownChannel } from '../errors.js';
import type { AuditEventName } from '../audit/audit-events.js';
import type { Catalogs } from '../texts/catalogs.js';
import type { ChannelRegistrationConfig } from './channel-registration-settings.js';
import { channelRefusal, type ChannelRules } from './channel-rules.js';
import { maskAddress } from './masking.js';
import type { CodeDelivery } from '../ports/code-delivery.js';
import type { ChannelChangeNotices } from '../ports/channel-notices.js';
import type { PersonChannels } from '../identity/channels.js';
import { mayChange, OwnershipRefused } from '../identity/user-ownership.js';
import { canonicalAddress } from './recipients.js';
import type { SendLimits } from './send-limits.js';

/** The code that proves an address: eight digits, typed easily from any phone. */
const PROOF_CODE_LENGTH = 8;
const PROOF_CODE_ALPHABET = '0123456789';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Who registers: the person on the channels page (the channel is theirs: origin owner, cooling and
 * their group's "Channel Registration" rules), or an agent in the console for a local user, who
 * enters the code the person reads out (the channel is the administrators', as the CLI's: origin
 * source, usable at once; the ownership table's `channels` part decides who may).
 */
export type ChannelOriginDoor = 'owner' | 'console';

/**
 * A group's rules for channels its members register themselves: the stored "Channel
 * Registration" options, each checked, the defaults (DEFAULT_CHANNEL_REGISTRATION_POLICY) for the rest.
 */
export async function registrationPolicyOf(
  store: Store,
  userId: string,
): Promise<ChannelRegistrationPolicyOptions> {
  return registrationOptionsOf(
    await store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_CHANNEL_REGISTRATION),
  );
}

/** Stored "Channel Registration" options, each checked, the defaults for the rest. */
export function registrationOptionsOf(
  stored: Record<string, unknown> | undefined,
): ChannelRegistrationPolicyOptions {
  const policy: Record<string, unknown> = { ...DEFAULT_CHANNEL_REGISTRATION_POLICY };
  for (const [name, schema] of Object.entries(ChannelRegistrationPolicyOptions.properties)) {
    const value = stored?.[name];
    if (value !== undefined && Value.Check(schema, value)) policy[name] = value;
  }
  return policy as ChannelRegistrationPolicyOptions;
}

/** Why a channel may not receive emergency codes now, or undefined when it may. */
export type ChannelTrust =
  | { usable: true }
  | { usable: false; reason: 'cooling'; until: number }
  | { usable: false; reason: 'proof-expired'; since: number };

/**
 * Whether a channel may receive emergency codes now. What a source set (the directory, SCIM, the
 * import, the CLI) may; one its person registered waits `registrationCoolingHours` from its
 * registration, and after `reproveAfterDays` since its last proof must be proven again.
 */
export function channelTrust(
  channel: Pick<Channel, 'origin' | 'provenAt' | 'registeredAt'>,
  policy: ChannelRegistrationPolicyOptions,
  now: number,
): ChannelTrust {
  if (channel.origin !== 'owner') return { usable: true };
  const registeredAt = channel.registeredAt ?? 0;
  const until = registeredAt + policy.registrationCoolingHours * HOUR;
  if (policy.registrationCoolingHours > 0 && now < until) return { usable: false, reason: 'cooling', until };
  if (policy.reproveAfterDays > 0) {
    const since = (channel.provenAt ?? 0) + policy.reproveAfterDays * DAY;
    if (now >= since) return { usable: false, reason: 'proof-expired', since };
  }
  return { usable: true };
}

/**
 * Why a channel may not receive an emergency code now ('cooling', 'proof-expired'), or undefined:
 * the check of send-code.ts and of the page's channel list. A source's channel costs no lookup.
 */
export async function untrustedChannel(
  services: { store: Store; now: () => number },
  channel: Channel,
): Promise<'cooling' | 'proof-expired' | undefined> {
  if (channel.origin !== 'owner') return undefined;
  const trust = channelTrust(
    channel,
    await registrationPolicyOf(services.store, channel.userId),
    services.now(),
  );
  return trust.usable ? undefined : trust.reason;
}

/** How a person whose password someone else knows gets a new one: from the help desk (a password link), or the organisation's own way. */
export type PasswordChange = 'help-desk' | 'organisation';

/** What an undo did, for the person who used its link. */
export interface UndoOutcome {
  removed: boolean;
  passwordChange: PasswordChange;
}

/** A person's channel or address waiting for its proof, as the channels page shows it. */
export type ChannelView =
  | {
      state: 'registered';
      key: ChannelKey;
      type: SendType;
      reference: string;
      to: string;
      origin: 'source' | 'owner';
      /** Where a source's channel comes from (the person's source: ldap, scim, import, local). */
      source?: UserSource;
      trust: ChannelTrust;
    }
  | {
      state: 'pending';
      key: ChannelKey;
      type: SendType;
      proofId: string;
      to: string;
      expiresAt: number;
      triesLeft: number;
    };

export interface ChannelProofServices {
  store: Store;
  /** Keys of the proof codes' and undo links' hashes: the current secret's first, then the previous one's. */
  hashKeys: readonly Buffer[];
  codeDelivery: CodeDelivery;
  channelRules: ChannelRules;
  sendLimits: SendLimits;
  catalogs: Catalogs;
  channelNotices: ChannelChangeNotices;
  /** The one writer of channels (identity/channels.ts): a proven address, a removal, an undo. */
  channels: PersonChannels;
  config: { timeZone: string; channelRegistration: ChannelRegistrationConfig };
  now: () => number;
}

export interface ChannelRequest {
  user: User;
  /** Who asks: the user id for the person themself, console:<account> for an agent. */
  actor: string;
  clientAddress: string;
  /** The request's language, before the user's own. */
  locale?: string | undefined;
}

/** A refusal the person sees: error 3 with the text that says what to do. */
const notRegistrable = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.channelNotRegistrable');
const proofInvalid = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.channelProofInvalid');
const undoInvalid = (): DomainError => new DomainError(ErrorNumber.notPermitted, 'error.channelUndoInvalid');
/** An address whose registration was undone: the help desk allows it again (allowAddresses). */
const addressBlocked = (): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.channelAddressBlocked');

/** The console's refusal of a new address for a disabled user (400, the reason in its detail). */
const userDisabled = (): RuleError =>
  new RuleError('the user is disabled: enable them before adding or changing a channel', 'conflict');

/** A local user's channels are the administrators'; another source's refuse the console, naming it. */
const ownedElsewhere = (user: User): OwnershipRefused | undefined =>
  mayChange(user, 'channels', 'local')
    ? undefined
    : new OwnershipRefused(user.username, 'channels', user.source, 'local');

/**
 * Channels people register themselves, one rule for every door (the channels page,
 * and the console for a local user's channels). A new address is proven by a one-time code sent to it
 * (a keyed hash in the store, expiring, DEA_CHANNEL_PROOF_TRIES tries taken one statement at a
 * time, within the send limits of emergency codes); only then is it written as the person's
 * channel, and their other channels are told at once with a link that undoes it.
 */
export class ChannelProofs {
  constructor(private readonly services: ChannelProofServices) {}

  private audit(
    store: Store,
    request: ChannelRequest,
    event: AuditEventName,
    details: Record<string, unknown>,
  ): Promise<void> {
    return store.audit.append(
      {
        event,
        userId: request.user.id,
        actor: request.actor,
        clientAddress: request.clientAddress,
        details,
      },
      this.services.now(),
    );
  }

  /** The person's channels with their source and trust, and the addresses waiting for their proof. */
  async list(user: User): Promise<ChannelView[]> {
    const { store, now } = this.services;
    const policy = await registrationPolicyOf(store, user.id);
    const at = now();
    const views: ChannelView[] = (await store.channels.listOfUser(user.id)).map((channel) => ({
      state: 'registered',
      key: channel.key,
      type: SEND_TYPE_OF_CHANNEL[channel.key],
      reference: channel.id,
      to: maskAddress(channel.key, channel.address),
      origin: channel.origin,
      ...(channel.origin === 'source' && { source: user.source }),
      trust: channelTrust(channel, policy, at),
    }));
    for (const proof of await store.channelProofs.listOfUser(user.id)) {
      // The console's proofs are the agent's to end, not the person's (prove refuses them).
      if (proof.expiresAt <= at || proof.triesLeft <= 0 || proof.origin !== 'owner') continue;
      views.push({
        state: 'pending',
        key: proof.key,
        type: SEND_TYPE_OF_CHANNEL[proof.key],
        proofId: proof.id,
        to: maskAddress(proof.key, proof.address),
        expiresAt: proof.expiresAt,
        triesLeft: proof.triesLeft,
      });
    }
    return views;
  }

  /** What the person's group lets them register themself (the channels page's form). */
  policyOf(user: User): Promise<ChannelRegistrationPolicyOptions> {
    return registrationPolicyOf(this.services.store, user.id);
  }

  /**
   * A test message (no code in it) to one of the person's channels, which they asked for to see
   * that it reaches them. The rules of a send: the channel rules and the delivery of its type
   * (130 when no message can go), then the send limits of emergency codes, counted together with
   * them (140), each refusal audited before anything is sent.
   */
  async sendTest(request: ChannelRequest & { key: ChannelKey }): Promise<{ to: string }> {
    const { store, now, config } = this.services;
    const { user, key } = request;
    const type = SEND_TYPE_OF_CHANNEL[key];
    const refuse = async (reason: string, error: DomainError, more: Record<string, unknown> = {}) => {
      await this.audit(store, request, 'channel.test_refused', { key, channel: type, reason, ...more });
      return error;
    };
    const channel = (await store.channels.listOfUser(user.id)).find((each) => each.key === key);
    if (channel === undefined) throw await refuse('unknown-recipient', unknownChannel());
    const to = maskAddress(key, channel.address);
    const sender = this.services.codeDelivery.senderOf(type);
    const unusable = channelRefusal(this.services.channelRules, type, channel.address);
    if (unusable !== undefined || sender === undefined)
      throw await refuse('unusable-address', unknownChannel(), {
        to,
        cause: unusable ?? 'channel-type-disabled',
      });
    const permit = await this.services.sendLimits.take(
      {
        userId: user.id,
        channelType: type,
        recipient: channel.address,
        clientAddress: request.clientAddress,
      },
      now(),
    );
    if (!permit.allowed)
      throw await refuse('rate-limit', tooManyRequests(permit.retryAfterSeconds), {
        to,
        limit: permit.scope,
        retryAfterSeconds: permit.retryAfterSeconds,
      });
    const outcome = await sender.send({
      channelType: type,
      recipient: channel.address,
      code: '',
      expiresAt: now(),
      language: await this.services.catalogs.choose([request.locale, user.locale]),
      timeZone: user.timeZone ?? config.timeZone,
      userId: user.id,
      purpose: 'test',
    });
    if (!outcome.ok)
      throw await refuse('delivery-failed', deliveryFailed(), {
        to,
        provider: sender.name,
        cause: outcome.reason,
      });
    await this.audit(store, request, 'channel.test_sent', {
      key,
      channel: type,
      to,
      provider: sender.name,
      attempts: outcome.attempts,
    });
    return { to };
  }

  /**
   * Sends a code to a new address for the key (or the same address, to prove it again). Refused,
   * audited, before anything is sent: a type the group's policy does not let its members register,
   * a key a source owns, one channel more than the policy allows, an address no code can go to
   * (130), a send limit (140).
   */
  async start(
    request: ChannelRequest & { key: ChannelKey; address: string; origin: ChannelOriginDoor },
  ): Promise<{ proofId: string; to: string; expiresAt: number }> {
    const { store, now, config } = this.services;
    const { user, key } = request;
    const type = SEND_TYPE_OF_CHANNEL[key];
    const refuse = async (reason: string, error: Error, more: Record<string, unknown> = {}) => {
      await this.audit(store, request, 'channel.proof_refused', { key, channel: type, reason, ...more });
      return error;
    };
    const address = canonicalAddress(type, request.address);
    if (address === undefined) throw invalidRequest('address: not a usable address for this channel');
    if (request.origin === 'console') {
      // The administrators' door: the ownership table, not the group's rules for people themselves.
      const owner = ownedElsewhere(user);
      if (owner !== undefined) throw await refuse('owned-by-source', owner, { origin: request.origin });
      // A disabled user gets no new address from the help desk either (no code, no notice sent).
      if (user.disabled) throw await refuse('user-disabled', userDisabled(), { origin: request.origin });
    } else {
      const policy = await registrationPolicyOf(store, user.id);
      if (!policy.registrationChannelTypes.includes(type))
        throw await refuse('type-not-allowed', notRegistrable());
      const channels = await store.channels.listOfUser(user.id);
      const current = channels.find((channel) => channel.key === key);
      if (current?.origin === 'source') throw await refuse('owned-by-source', notRegistrable());
      const owned = channels.filter((channel) => channel.origin === 'owner' && channel.key !== key).length;
      if (owned + 1 > policy.registrationMaxChannels)
        throw await refuse('too-many', notRegistrable(), { max: policy.registrationMaxChannels });
      if (await store.channelProofs.isBlocked(user.id, type, blockedForm(type, address)))
        throw await refuse('address-blocked', addressBlocked(), { to: maskAddress(key, address) });
    }
    const to = maskAddress(key, address);
    const sender = this.services.codeDelivery.senderOf(type);
    const unusable = channelRefusal(this.services.channelRules, type, address);
    if (unusable !== undefined || sender === undefined)
      throw await refuse('unusable-address', unknownChannel(), {
        to,
        cause: unusable ?? 'channel-type-disabled',
      });
    // The limits of emergency codes, counted together with them: a proof is a code sent.
    const permit = await this.services.sendLimits.take(
      { userId: user.id, channelType: type, recipient: address, clientAddress: request.clientAddress },
      now(),
    );
    if (!permit.allowed)
      throw await refuse('rate-limit', tooManyRequests(permit.retryAfterSeconds), {
        to,
        limit: permit.scope,
        retryAfterSeconds: permit.retryAfterSeconds,
      });
    const code = generateCode(PROOF_CODE_LENGTH, PROOF_CODE_ALPHABET);
    const proofId = newId();
    const at = now();
    const expiresAt = at + config.channelRegistration.proofMs;
    await store.channelProofs.start({
      id: proofId,
      userId: user.id,
      key,
      address,
      origin: request.origin,
      codeHash: this.codeHash(this.services.hashKeys[0]!, proofId, code),
      triesLeft: config.channelRegistration.proofTries,
      createdAt: at,
      expiresAt,
    });
    const language = await this.services.catalogs.choose([request.locale, user.locale]);
    const outcome = await sender.send({
      channelType: type,
      recipient: address,
      code,
      expiresAt,
      language,
      timeZone: user.timeZone ?? config.timeZone,
      userId: user.id,
      purpose: 'proof',
    });
    if (!outcome.ok) {
      await store.channelProofs.remove(user.id, key);
      throw await refuse('delivery-failed', deliveryFailed(), {
        to,
        provider: sender.name,
        cause: outcome.reason,
      });
    }
    await this.audit(store, request, 'channel.proof_sent', {
      key,
      channel: type,
      to,
      origin: request.origin,
      proofId,
      provider: sender.name,
      expiresAt: new Date(expiresAt).toISOString(),
    });
    return { proofId, to, expiresAt };
  }

  /**
   * Takes the code for a proof. Each try is taken in one statement before the compare, so no
   * number of tries at once gets more than DEA_CHANNEL_PROOF_TRIES; a right code ends the proof
   * in the transaction that writes the channel, so of two right answers at once one registers.
   * A new address's registration is told to the person's other channels with a link that undoes it.
   */
  async prove(
    request: ChannelRequest & { proofId: string; code: string; origin: ChannelOriginDoor },
  ): Promise<ChannelView> {
    const { store, now } = this.services;
    const { user } = request;
    // A proof is ended only through the door that started it: another door's takes none of its tries.
    const started = await store.channelProofs.findOfUser(user.id, request.proofId);
    const taken =
      started?.origin === request.origin
        ? await store.channelProofs.takeTry(user.id, request.proofId, now())
        : undefined;
    if (taken === undefined || taken.origin !== request.origin) {
      const found = await store.channelProofs.findOfUser(user.id, request.proofId);
      const reason =
        found === undefined || found.origin !== request.origin
          ? 'unknown'
          : found.expiresAt <= now()
            ? 'expired'
            : 'no-tries';
      await this.audit(store, request, 'channel.proof_refused', {
        reason,
        proofId: request.proofId,
        ...(found !== undefined && { key: found.key, channel: SEND_TYPE_OF_CHANNEL[found.key] }),
      });
      throw proofInvalid();
    }
    const typed = request.code.replace(/[\s-]/g, '');
    const right = this.services.hashKeys.some((key) =>
      constantTimeEqual(this.codeHash(key, taken.id, typed), taken.codeHash),
    );
    const proofDetails = { key: taken.key, channel: SEND_TYPE_OF_CHANNEL[taken.key], proofId: taken.id };
    if (!right) {
      await this.audit(store, request, 'channel.proof_refused', {
        ...proofDetails,
        reason: 'wrong-code',
        triesLeft: taken.triesLeft,
      });
      throw proofInvalid();
    }
    const registered = await store.transaction(async (trx) => {
      // The person's row, held to the end, makes the proofs of one person end one at a time: the
      // policy's limits below are checked against the channels the others wrote (on PostgreSQL
      // too, where two transactions would otherwise each count the channels before the other's).
      const owner = await trx.users.findForChange(request.user.id);
      if (!(await trx.channelProofs.complete(taken.id))) return undefined;
      return this.register(trx, request, taken, owner);
    });
    if (registered === undefined) {
      await this.audit(store, request, 'channel.proof_refused', {
        ...proofDetails,
        reason: 'taken-meanwhile',
      });
      throw proofInvalid();
    }
    if ('refused' in registered) throw registered.refused;
    const { channel, undoToken, view } = registered;
    if (undoToken !== undefined) await this.tell(request, channel, undoToken);
    return view;
  }

  /**
   * Writes the proven address as the channel of its key, inside the transaction that ended the
   * proof, with the person's row held. What changed since the proof began, or what the rules
   * allow now, refuses it here: the proof ends, the refusal is audited and answered.
   */
  private async register(
    store: Store,
    request: ChannelRequest,
    proof: ChannelProof,
    owner: User | undefined,
  ): Promise<{ channel: Channel; undoToken: string | undefined; view: ChannelView } | { refused: Error }> {
    const { now } = this.services;
    const at = now();
    const policy = await registrationPolicyOf(store, request.user.id);
    const channels = await store.channels.listOfUser(request.user.id);
    const before = channels.find((channel) => channel.key === proof.key);
    const byConsole = proof.origin === 'console';
    const type = SEND_TYPE_OF_CHANNEL[proof.key];
    const refusal = async (reason: string, error: Error, more: Record<string, unknown> = {}) => {
      await this.audit(store, request, 'channel.proof_refused', {
        key: proof.key,
        channel: type,
        proofId: proof.id,
        reason,
        ...more,
      });
      return { refused: error };
    };
    // What changed since the proof began (a source took the key, or the user) refuses it now.
    const taken = byConsole
      ? owner === undefined
        ? notRegistrable()
        : ownedElsewhere(owner)
      : owner === undefined || before?.origin === 'source'
        ? notRegistrable()
        : undefined;
    if (taken !== undefined) return refusal('owned-by-source', taken);
    // Disabled since the agent's proof began: nothing is written.
    if (byConsole && owner?.disabled === true) return refusal('user-disabled', userDisabled());
    if (!byConsole) {
      // The group's rules hold for what is written, whatever was started: three proofs started
      // under a maximum of one give one channel.
      if (!policy.registrationChannelTypes.includes(type))
        return refusal('type-not-allowed', notRegistrable());
      const others = channels.filter((channel) => channel.origin === 'owner' && channel.key !== proof.key);
      if (others.length + 1 > policy.registrationMaxChannels)
        return refusal('too-many', notRegistrable(), { max: policy.registrationMaxChannels });
      if (await store.channelProofs.isBlocked(request.user.id, type, blockedForm(type, proof.address)))
        return refusal('address-blocked', addressBlocked());
    }
    // The console's address replaces the key's old one in this transaction, as the CLI's would.
    const channel = await this.services.channels.writeProven(
      store,
      { userId: request.user.id, key: proof.key, address: proof.address, byConsole },
      at,
    );
    const reproof = before !== undefined && before.id === channel.id && before.origin === channel.origin;
    const trust = channelTrust(channel, policy, at);
    const to = maskAddress(channel.key, channel.address);
    await this.audit(store, request, 'channel.registered', {
      key: channel.key,
      channel: SEND_TYPE_OF_CHANNEL[channel.key],
      to,
      origin: proof.origin,
      channelId: channel.id,
      reproof,
      usableFrom: new Date(trust.usable ? at : trust.reason === 'cooling' ? trust.until : at).toISOString(),
    });
    const undoToken = reproof ? undefined : await this.undoLinkOf(store, channel, at);
    const view: ChannelView = {
      state: 'registered',
      key: channel.key,
      type: SEND_TYPE_OF_CHANNEL[channel.key],
      reference: channel.id,
      to,
      origin: channel.origin,
      trust,
    };
    return { channel, undoToken, view };
  }

  /** Tells the person's other channels (never the new one) in their language, with the undo link. */
  /** A new one-time link that undoes the channel's registration ("this was not me"); answers its token. */
  private async undoLinkOf(store: Store, channel: Channel, at: number): Promise<string> {
    const undoToken = randomToken(32);
    await store.channelProofs.addUndoLink({
      tokenHash: this.undoHash(this.services.hashKeys[0]!, undoToken),
      userId: channel.userId,
      channelId: channel.id,
      key: channel.key,
      address: channel.address,
      createdAt: at,
      expiresAt: at + this.services.config.channelRegistration.undoLinkMs,
    });
    return undoToken;
  }

  /**
   * A channel an operator set without a proof (`dea channel set`): the person's other channels are
   * told at once, with the link that undoes it, as for an address an agent proved in the console.
   */
  async announce(user: User, channel: Channel): Promise<void> {
    const undoToken = await this.undoLinkOf(this.services.store, channel, this.services.now());
    await this.tell({ user, clientAddress: null }, channel, undoToken);
  }

  private async tell(
    request: Pick<ChannelRequest, 'user' | 'locale'> & { clientAddress: string | null },
    channel: Channel,
    undoToken: string,
  ): Promise<void> {
    const { catalogs, config, now } = this.services;
    const language = await catalogs.choose([request.user.locale, request.locale]);
    await this.services.channelNotices.tell({
      userId: request.user.id,
      channel,
      undoUrl: `${config.channelRegistration.channelsUrl}#undo=${undoToken}`,
      language,
      timeZone: request.user.timeZone ?? config.timeZone,
      at: now(),
      clientAddress: request.clientAddress,
    });
  }

  /**
   * The link of a notice ("this was not me"), used once. Whoever registered the channel held the
   * person's password and a strong sign-in (ADR 0034), so it takes back everything added since:
   * from the opening of the earliest registration session open when the channel was registered,
   * reaching further back for each passkey or channel that opened a registration session since
   * and was added before. It removes the channel (unless its address changed since) and the
   * person's other channels registered since, every proof under way, the passkeys added or used
   * since, the devices remembered since; it blocks the addresses removed from being registered
   * again by the person until the help desk allows them (allowAddresses); it ends every session
   * and registration session of the person and their unused registration links, and takes back
   * their unused codes. Its audit event is
   * the help desk's alert (a webhook of `channel.registration_undone`), saying that someone else
   * knows the password; the answer tells the person how they get a new one (`passwordChange`:
   * a password link from the help desk for a local user, else the organisation's own way).
   * Needs no session: whoever holds one of the person's other channels may use it.
   */
  async undo(token: string, clientAddress: string): Promise<UndoOutcome> {
    const { store, now, hashKeys } = this.services;
    const at = now();
    const hashes = hashKeys.map((key) => this.undoHash(key, token));
    const outcome = await store.transaction(async (trx) => {
      const link = await trx.channelProofs.useUndoLink(hashes, at);
      if (link === undefined) return undefined;
      const userId = link.userId;
      const owner = await trx.users.findForChange(userId);
      const since = await this.undoneSince(trx, userId, link.createdAt);
      const removedChannels: Channel[] = [];
      let removed = false;
      for (const channel of await trx.channels.listOfUser(userId)) {
        const undone = channel.id === link.channelId;
        const addedSince = channel.origin === 'owner' && (channel.registeredAt ?? -1) >= since;
        if (!undone && !addedSince) continue;
        if (!(await this.services.channels.takeAway(trx, userId, channel.key))) continue;
        removedChannels.push(channel);
        if (undone) removed = true;
      }
      let proofsEnded = 0;
      for (const proof of await trx.channelProofs.listOfUser(userId))
        if (proof.origin === 'owner' && (await trx.channelProofs.remove(userId, proof.key))) proofsEnded += 1;
      const passkeysRemoved: string[] = [];
      for (const passkey of await trx.userPasskeys.listOfUser(userId))
        if (
          (passkey.createdAt >= since || (passkey.lastUsedAt ?? -1) >= since) &&
          (await trx.userPasskeys.remove(userId, passkey.credentialId))
        )
          passkeysRemoved.push(passkey.credentialId);
      const devicesForgotten = await trx.rememberedDevices.forgetSince(userId, since, at);
      const blocked = new Map<string, { type: SendType; address: string; key: ChannelKey }>();
      const block = (key: ChannelKey, address: string) =>
        blocked.set(`${SEND_TYPE_OF_CHANNEL[key]}\u0000${blockedForm(SEND_TYPE_OF_CHANNEL[key], address)}`, {
          type: SEND_TYPE_OF_CHANNEL[key],
          address: blockedForm(SEND_TYPE_OF_CHANNEL[key], address),
          key,
        });
      if (link.address !== null) block(link.key, link.address);
      for (const channel of removedChannels) block(channel.key, channel.address);
      await trx.channelProofs.block(
        [...blocked.values()].map(({ type, address }) => ({
          userId,
          type,
          address,
          blockedAt: at,
          blockedBy: 'undo-link',
        })),
      );
      const sessionsEnded = await trx.sessions.endAllOfUser(userId, at);
      const registrationSessionsEnded = await trx.registration.endAllOfUser(userId, at);
      const registrationLinksRevoked = await trx.registration.revokeLinks(userId, at);
      // One of the person's codes may already have gone to that channel, or been shown to whoever
      // signed in: none stays usable.
      const codesRevoked: string[] = [];
      for (const code of await trx.codes.listActive(userId, at)) {
        if (await trx.codes.invalidate(code.id, at)) codesRevoked.push(code.id);
      }
      const passwordChange: PasswordChange =
        owner !== undefined && mayChange(owner, 'password', 'local') ? 'help-desk' : 'organisation';
      await trx.audit.append(
        {
          event: 'channel.registration_undone',
          userId,
          actor: 'undo-link',
          clientAddress,
          details: {
            key: link.key,
            channelId: link.channelId,
            removed,
            since: new Date(since).toISOString(),
            channelsRemoved: removedChannels.map((channel) => ({
              key: channel.key,
              to: maskAddress(channel.key, channel.address),
            })),
            proofsEnded,
            passkeysRemoved,
            devicesForgotten,
            blocked: [...blocked.values()].map(({ type, address, key }) => ({
              channel: type,
              to: maskAddress(key, address),
            })),
            sessionsEnded,
            registrationSessionsEnded,
            registrationLinksRevoked,
            codesRevoked,
            passwordKnown: true,
            passwordChange,
          },
        },
        at,
      );
      return { removed, passwordChange };
    });
    if (outcome === undefined) {
      await store.audit.append(
        { event: 'channel.undo_refused', actor: 'undo-link', clientAddress, details: { reason: 'unusable' } },
        at,
      );
      throw undoInvalid();
    }
    return outcome;
  }

  /**
   * From when an undo takes back what was added: the opening of the earliest registration session
   * open at `registeredAt`, then further back for every passkey or channel added before that which
   * opened a registration session since (whoever registered the channel may hold it), to the
   * opening of the earliest session open when it was added; until nothing reaches further.
   */
  private async undoneSince(store: Store, userId: string, registeredAt: number): Promise<number> {
    const openedAround = async (at: number) =>
      Math.min(at, (await store.registration.earliestOpenAt(userId, at)) ?? at);
    let since = await openedAround(registeredAt);
    for (;;) {
      let earlier = since;
      for (const passkey of await store.userPasskeys.listOfUser(userId))
        if ((passkey.lastUsedAt ?? -1) >= since && passkey.createdAt < since)
          earlier = Math.min(earlier, await openedAround(passkey.createdAt));
      const channels = await store.channels.listOfUser(userId);
      for (const session of await store.registration.openedSince(userId, since)) {
        const channel = channels.find((each) => each.id === session.channelId);
        if (channel?.origin === 'owner' && channel.registeredAt !== null && channel.registeredAt < since)
          earlier = Math.min(earlier, await openedAround(channel.registeredAt));
      }
      if (earlier >= since) return since;
      since = earlier;
    }
  }

  /**
   * Removes a channel (and any proof under way for its key): the person only one they registered (a
   * source's is read-only); the console any of a local user's (another source's: OwnershipRefused).
   */
  async remove(request: ChannelRequest & { key: ChannelKey; origin: ChannelOriginDoor }): Promise<boolean> {
    const { store } = this.services;
    const { user, key } = request;
    return store.transaction(async (trx) => {
      const current = (await trx.channels.listOfUser(user.id)).find((channel) => channel.key === key);
      if (request.origin === 'console') {
        const owner = await trx.users.findById(user.id);
        const refused = owner === undefined ? undefined : ownedElsewhere(owner);
        if (refused !== undefined) throw refused;
      } else if (current?.origin === 'source') throw notRegistrable();
      const proofEnded = await trx.channelProofs.remove(user.id, key);
      const removed = current !== undefined && (await this.services.channels.takeAway(trx, user.id, key));
      if (removed) await this.audit(trx, request, 'channel.removed', { key, origin: request.origin });
      return removed || proofEnded;
    });
  }

  private codeHash(key: Buffer, proofId: string, code: string): string {
    return keyedHash(key, 'channel-proof', proofId, code);
  }

  private undoHash(key: Buffer, token: string): string {
    return keyedHash(key, 'channel-undo', token);
  }
}

/**
 * Allows the person's addresses blocked by an undo ("this was not me") to be registered by them
 * again: the one function of the help desk (`addresses/allow`, actor console:<agent>) and of `dea
 * user allow-addresses` (actor cli), audited as `channel.addresses_allowed`. Answers those allowed.
 */
export async function allowAddresses(
  services: { store: Store; now: () => number },
  user: User,
  by: { actor: string; clientAddress: string | null },
): Promise<BlockedAddress[]> {
  const { store, now } = services;
  return store.transaction(async (trx) => {
    const allowed = await trx.channelProofs.allow(user.id);
    await trx.audit.append(
      {
        event: 'channel.addresses_allowed',
        userId: user.id,
        actor: by.actor,
        clientAddress: by.clientAddress,
        details: {
          count: allowed.length,
          allowed: allowed.map((blocked) => ({ channel: blocked.type, to: maskedOf(blocked) })),
        },
      },
      now(),
    );
    return allowed;
  });
}

/**
 * What an undo left for the help desk to see: since when someone else knows the person's password
 * (the newest `channel.registration_undone`, unless a password was set after it) and the
 * addresses blocked, masked.
 */
export async function registrationUndoneOf(
  store: Store,
  userId: string,
): Promise<{
  passwordKnownSince: number | null;
  blocked: { channel: string; to: string; blockedAt: number }[];
}> {
  const [undone] = await store.audit.list({ userId, event: 'channel.registration_undone', limit: 1 });
  const [passwordSet] =
    undone === undefined ? [] : await store.audit.list({ userId, event: 'user.password_set', limit: 1 });
  const known = undone !== undefined && (passwordSet === undefined || passwordSet.at < undone.at);
  return {
    passwordKnownSince: known ? undone.at : null,
    blocked: (await store.channelProofs.listBlocked(userId)).map((each) => ({
      channel: each.type,
      to: maskedOf(each),
      blockedAt: each.blockedAt,
    })),
  };
}

/**
 * The form in which an address is blocked and compared: the canonical address, an e-mail address
 * and a handle in lower case (one mailbox or account, however it is written).
 */
export function blockedForm(type: SendType, address: string): string {
  return type === 'smtp' || type === 'TWITTER' ? address.toLowerCase() : address;
}

/** A blocked address masked as its type's channels are (the first key of that type masks it). */
export function maskedOf(blocked: Pick<BlockedAddress, 'type' | 'address'>): string {
  const key = (Object.keys(SEND_TYPE_OF_CHANNEL) as ChannelKey[]).find(
    (each) => SEND_TYPE_OF_CHANNEL[each] === blocked.type,
  );
  return key === undefined ? '***' : maskAddress(key, blocked.address);
}
