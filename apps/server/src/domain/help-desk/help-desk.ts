import { helpDeskOffers } from './help-desk-offers.js';
import {
  canonicalUsername,
  DEFAULT_CHANNEL_REGISTRATION_POLICY,
  ErrorNumber,
  type HelpDeskIssueResult,
  type HelpDeskUser,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  SEND_TYPE_OF_CHANNEL,
} from '@dea/contract';
import type { Store, User } from '../../store/store.js';
import { DomainError, forbidden, notFound } from '../errors.js';
import { registrationPolicyOf } from '../channels/channel-proof.js';
import type { CodeDefaults } from '../codes/code-settings.js';
import { issueCode } from '../codes/codes.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { inScope, scopeHolds } from '../console/console-scope.js';
import { helpDeskPolicyAllows } from '../policies/group-policies.js';
import { NoSuchUser, type People } from '../identity/people.js';
import { OwnershipRefused } from '../identity/user-ownership.js';
import { maskAddress } from '../channels/masking.js';
import { resolvePolicy } from '../policies/policy.js';
import type { SendRequest } from '../channels/send-code.js';
import type { Verification } from '../codes/verification.js';

const SEARCH_LIMIT = 20;
const AUDIT_SHOWN = 20;

const iso = (at: number): string => new Date(at).toISOString();

/**
 * What a help-desk agent (or an administrator) does for a user who calls: find them, see where
 * they stand, give them a code, take codes back, end a lock or their sessions. Only after the
 * passkey of this console session; everything audited with the agent as actor.
 */
export class HelpDesk {
  constructor(
    private readonly store: Store,
    /** The identity module's users (identity/people.ts): ending a user's sessions goes through it. */
    private readonly people: People,
    private readonly verification: Verification,
    private readonly codeDefaults: CodeDefaults,
    private readonly codeHashKey: Buffer,
    private readonly now: () => number,
    /** Sends a code to a channel as the page does (sendCode), on the agent's behalf. */
    private readonly send: (request: SendRequest) => Promise<{ to: string }>,
  ) {}

  /** The identity module's rule: the user's "Help Desk" policy names the agent's role. */
  private issuersAllow(caller: ConsoleCaller, userId: string): Promise<boolean> {
    return this.people.helpDeskMayHelp(caller.account.role, userId);
  }

  /**
   * The one check of every help-desk action on a user: the agent may act at all, the user
   * exists and is in the agent's scope (console-scope.ts: one outside is answered as one that does
   * not exist), and the user's "Help Desk" policy names the agent's role: it governs seeing the user,
   * taking things back and giving them anything. A disabled user is given nothing (no code, sent
   * or shown, and no end of their lock); what is taken back (codes, sessions) still may be.
   */
  private async helpable(
    caller: ConsoleCaller,
    userId: string,
    action: 'see' | 'take' | 'give',
  ): Promise<User> {
    const user = await this.find(userId);
    if (!(await inScope(this.store, caller.account, user.id))) throw notFound();
    if (!(await this.issuersAllow(caller, user.id))) throw forbidden();
    if (action === 'give' && user.disabled) throw forbidden();
    return user;
  }

  /**
   * Users whose name or full name has the query, or (three digits or more) with a channel ending
   * in it: one store statement answers them with their groups and "Help Desk" policy, and the scope
   * and the policy are checked on that answer by the rules every other action calls.
   */
  async search(caller: ConsoleCaller, query: string) {
    const needle = query.trim().toLowerCase();
    // Stored names are canonical (RFC 8265): the query is spelled the same way when it can be.
    const usernamePart = canonicalUsername(query) ?? needle;
    const candidates = await this.store.users.helpDeskCandidates({
      usernamePart,
      fullNamePart: needle,
      ...(/^\d{3,}$/.test(needle) && { addressEnding: needle }),
      addressLimit: SEARCH_LIMIT,
      category: POLICY_CATEGORY_HELP_DESK,
    });
    // Users outside the agent's scope, and members of a group whose "Help Desk" policy leaves this
    // role out, are not the agent's to see.
    return candidates
      .filter(
        ({ user, byAddress, groups, policy }) =>
          (byAddress ||
            user.username.includes(usernamePart) ||
            user.fullName.toLowerCase().includes(needle)) &&
          scopeHolds(caller.account, groups) &&
          helpDeskPolicyAllows(policy, caller.account.role),
      )
      .slice(0, SEARCH_LIMIT)
      .map(({ user, groups }) => this.summaryOf(user, groups));
  }

  async user(caller: ConsoleCaller, userId: string): Promise<HelpDeskUser> {
    const user = await this.helpable(caller, userId, 'see');
    const at = this.now();
    const policy = resolvePolicy(
      await this.store.groups.findPolicyOfUser(user.id, POLICY_CATEGORY_SELF_SERVICE),
      this.codeDefaults,
    );
    const channels = await this.store.channels.listOfUser(user.id);
    // The group's rules for channels people register, read only when the user has one of those.
    const registration = channels.some((channel) => channel.origin === 'owner')
      ? await registrationPolicyOf(this.store, user.id)
      : DEFAULT_CHANNEL_REGISTRATION_POLICY;
    const offers = helpDeskOffers(user, policy, channels, registration, at);
    const lock = await this.store.verifyFailures.find(user.id);
    const locked =
      lock !== undefined && lock.lockedAt !== null && (lock.lockedUntil === null || lock.lockedUntil > at);
    return {
      user: await this.summary(user),
      mayIssue: !user.disabled,
      offers: { onScreen: offers.onScreen, channels: offers.channels },
      policy: {
        enableECode: policy.enableECode,
        emergencyCodeDelivery: policy.emergencyCodeDelivery,
        codeValidityMinutes: policy.codeValidityMinutes,
        maxUnusedCodes: policy.maxUnusedCodes,
      },
      channels: channels.map((channel) => {
        const waiting = offers.waiting.get(channel.id);
        return {
          key: channel.key,
          masked: maskAddress(channel.key, channel.address),
          reference: channel.id,
          waiting: waiting?.reason ?? null,
          usableFrom: waiting?.reason === 'cooling' ? iso(waiting.until) : null,
        };
      }),
      codes: (await this.store.codes.listActive(user.id, at)).map((code) => ({
        id: code.id,
        channel: code.channelType ?? 'screen',
        createdAt: iso(code.createdAt),
        expiresAt: iso(code.expiresAt),
        usesLeft: code.usesLeft,
      })),
      lock: {
        failures: lock?.failures ?? 0,
        locked,
        lockedUntil: locked && typeof lock?.lockedUntil === 'number' ? iso(lock.lockedUntil) : null,
      },
      sessions: (await this.store.sessions.listOpenOfUser(user.id)).map((session) => ({
        createdAt: iso(session.createdAt),
        lastSeenAt: iso(session.lastSeenAt),
      })),
      audit: (await this.store.audit.list({ userId: user.id, limit: AUDIT_SHOWN })).map((entry) => ({
        at: iso(entry.at),
        event: entry.event,
        actor: entry.actor,
        details: entry.details,
      })),
    };
  }

  /**
   * A code for a caller, shown once to the agent, under the user's own policy (codes allowed, at
   * most so many unused). Asks for the passkey again when its last check is not fresh.
   */
  async issue(
    caller: ConsoleCaller,
    userId: string,
    reason: string,
    passkeyFresh: boolean,
    clientAddress: string,
  ): Promise<HelpDeskIssueResult> {
    if (!passkeyFresh) throw passkeyAgain(caller);
    const user = await this.helpable(caller, userId, 'give');
    const policy = resolvePolicy(
      await this.store.groups.findPolicyOfUser(user.id, POLICY_CATEGORY_SELF_SERVICE),
      this.codeDefaults,
    );
    if (!policy.enableECode) throw forbidden();
    const issued = await issueCode(this.store, this.codeHashKey, {
      userId: user.id,
      policy,
      channelType: null,
      clientAddress,
      now: this.now(),
      actor: this.actorOf(caller),
      details: { reason: reason.trim(), via: 'help desk' },
    });
    return { code: issued.code, expiresAt: iso(issued.expiresAt) };
  }

  /**
   * A code sent to one of the user's channels, as the page would send it (the user's policy must
   * send by channel; send limits, retries, notices), with the agent's reason in the audit.
   */
  async sendToChannel(
    caller: ConsoleCaller,
    userId: string,
    request: { reason: string; recipient: string },
    passkeyFresh: boolean,
    clientAddress: string,
    log: SendRequest['log'],
  ): Promise<{ to: string }> {
    if (!passkeyFresh) throw passkeyAgain(caller);
    const user = await this.helpable(caller, userId, 'give');
    const channel = await this.store.channels.findOfUser(user.id, request.recipient);
    if (channel === undefined) throw new DomainError(ErrorNumber.unknownChannel);
    return this.send({
      user,
      channelType: SEND_TYPE_OF_CHANNEL[channel.key],
      reference: channel.id,
      locale: undefined,
      clientAddress,
      log,
      actor: this.actorOf(caller),
      details: { reason: request.reason.trim(), via: 'help desk' },
    });
  }

  /** Takes back one unused code, or all of them. Answers how many. */
  async revoke(caller: ConsoleCaller, userId: string, codeId: string | undefined): Promise<number> {
    const user = await this.helpable(caller, userId, 'take');
    const at = this.now();
    const codes = (await this.store.codes.listActive(user.id, at)).filter(
      (code) => codeId === undefined || code.id === codeId,
    );
    if (codeId !== undefined && codes.length === 0) throw notFound();
    for (const code of codes) await this.store.codes.invalidate(code.id, at);
    await this.audit('console.codes_revoked', caller, user.id, { codeIds: codes.map((code) => code.id) });
    return codes.length;
  }

  /**
   * A one-time registration link for a caller whose identity the agent checked: made by
   * `issue`, the one function of every door (registration-sign-in.ts issueRegistrationLink), with
   * the agent as actor; the same "who may help whom" as giving a code.
   */
  async registrationLink<T>(
    caller: ConsoleCaller,
    userId: string,
    issue: (user: User, actor: string) => Promise<T>,
  ): Promise<T> {
    const user = await this.helpable(caller, userId, 'give');
    return issue(user, this.actorOf(caller));
  }

  /**
   * Forgets something of the user's through `forget`, the one function of every door for it (their
   * remembered devices: remembered-devices.ts forgetAll; their passkeys: user-passkeys.ts
   * forgetUserPasskeys), with the agent as actor; the same "who may help whom" as taking codes
   * back. Answers how many were forgotten.
   */
  async forgetFor(
    caller: ConsoleCaller,
    userId: string,
    forget: (user: User, actor: string) => Promise<number>,
  ): Promise<number> {
    const user = await this.helpable(caller, userId, 'take');
    return forget(user, this.actorOf(caller));
  }

  async unlock(caller: ConsoleCaller, userId: string): Promise<number> {
    const user = await this.helpable(caller, userId, 'give');
    return (await this.verification.unlock(user.id, this.actorOf(caller), this.now())) ? 1 : 0;
  }

  async endSessions(caller: ConsoleCaller, userId: string): Promise<number> {
    const user = await this.helpable(caller, userId, 'take');
    try {
      const by = { door: 'local', actor: this.actorOf(caller) } as const;
      return (await this.people.endSessions(by, user.id)).sessionsEnded;
    } catch (error) {
      if (error instanceof NoSuchUser) throw notFound();
      // A part another source owns: 409, naming the owner.
      if (error instanceof OwnershipRefused)
        throw new DomainError(
          ErrorNumber.notPermitted,
          'error.notPermitted',
          { detail: error.message },
          'conflict',
        );
      throw error;
    }
  }

  private actorOf(caller: ConsoleCaller): string {
    return `console:${caller.account.username}`;
  }

  private async find(userId: string): Promise<User> {
    const user = await this.store.users.findById(userId);
    if (user === undefined) throw notFound();
    return user;
  }

  private async summary(user: User) {
    return this.summaryOf(
      user,
      (await this.store.groups.listOfUser(user.id)).map((group) => group.name),
    );
  }

  private summaryOf(user: User, groups: string[]) {
    return {
      id: user.id,
      username: user.username,
      fullName: user.fullName,
      source: user.source,
      disabled: user.disabled,
      groups,
    };
  }

  private audit(
    event: 'console.codes_revoked',
    caller: ConsoleCaller,
    userId: string,
    details: Record<string, unknown>,
  ) {
    return this.store.audit.append({ event, userId, actor: this.actorOf(caller), details }, this.now());
  }
}

/**
 * A sensitive action whose second factor is no longer fresh: the passkey again, or for a session
 * of the OpenID provider a sign-in there again (console-oidc.ts, prompt=login).
 */
const passkeyAgain = (caller: ConsoleCaller): DomainError =>
  new DomainError(ErrorNumber.notPermitted, 'error.notPermitted', {}, 'forbidden', {
    passkey: caller.signedInWith === 'provider' ? 'provider' : 'again',
  });
