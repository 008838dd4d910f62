import {
  type AdminPasswordLink,
  type AdminPeople,
  type AdminPerson,
  type AdminPersonChanged,
  type AdminPersonCreate,
  type AdminPersonUpdate,
  canonicalUsername,
  type ChannelKey,
} from '@dea/contract';
import type { Store, User } from '../../store/store.js';
import { conflict, forbidden, invalidRequest, notFound } from '../errors.js';
import type { ChannelProofs } from '../channels/channel-proof.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { inScope } from '../console/console-scope.js';
import type { Groups } from './groups.js';
import type { PasswordLinks } from './password-links.js';
import { NoSuchUser, type People, type PersonChange, ProvisionError } from './people.js';
import type { ChangeBy } from './user-ownership.js';
import { mayChange, OwnershipRefused } from './user-ownership.js';
import { maskAddress } from '../channels/masking.js';
import { RuleError } from '../rule-error.js';

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());
/** How many users a list answers at most: the search narrows it. */
const LIST_LIMIT = 200;

/**
 * The identity module's refusals as the console answers them: another source's part 409 naming
 * the owner (ADR 0019), a field's rule or a name taken 400, a user gone 404.
 */
function asDomainError(error: unknown): never {
  if (error instanceof OwnershipRefused || (error instanceof RuleError && error.kind === 'owned'))
    throw conflict(error.message);
  if (error instanceof NoSuchUser || (error instanceof RuleError && error.kind === 'missing'))
    throw notFound();
  if (error instanceof ProvisionError || error instanceof RuleError) throw invalidRequest(error.message);
  throw error;
}

const changedOf = (change: PersonChange): AdminPersonChanged => ({
  changed: change.changed,
  sessionsEnded: change.sessionsEnded,
});

/**
 * People in the console: an administrator adds, edits, disables, enables and
 * removes users, ends their sessions, changes their groups and makes a one-time link to set their
 * password, every change through the identity module (People, Groups, PasswordLinks) that the CLI
 * calls too, with the door `local` (the administrators) and the actor `console:<account>`. Only the admin role,
 * after the passkey; what a directory or SCIM owns is shown with its source and refused (409).
 * A local user's channels change through the proof of channel-proof.ts, also by a help-desk agent
 * for the users of their scope.
 */
export class PeopleAdministration {
  constructor(
    private readonly deps: {
      store: Store;
      people: People;
      groups: Groups;
      passwordLinks: PasswordLinks;
      /** The proof rule of channels (channel-proof.ts), the one the channels page calls too. */
      channelProofs: ChannelProofs;
      now: () => number;
    },
  ) {}

  /** The administrator the route let through (CONSOLE_ACCESS.administer; never scoped), as the change's author. */
  private by(caller: ConsoleCaller): ChangeBy {
    return { door: 'local', actor: `console:${caller.account.username}` };
  }

  async list(caller: ConsoleCaller, query = ''): Promise<AdminPeople> {
    const needle = query.trim().toLowerCase();
    const spelled = canonicalUsername(query.trim()) ?? needle;
    const users = (await this.deps.store.users.list())
      .filter(
        (user) =>
          needle === '' || user.username.includes(spelled) || user.fullName.toLowerCase().includes(needle),
      )
      .slice(0, LIST_LIMIT);
    return {
      users: users.map((user) => ({
        id: user.id,
        username: user.username,
        fullName: user.fullName,
        source: user.source,
        disabled: user.disabled,
      })),
    };
  }

  async person(caller: ConsoleCaller, userId: string): Promise<AdminPerson> {
    const { store, now } = this.deps;
    const user = await store.users.findById(userId);
    if (user === undefined) throw notFound();
    const memberOf = new Set((await store.groups.listOfUser(user.id)).map((group) => group.id));
    const groups = (await store.groups.list()).map((group) => ({
      id: group.id,
      name: group.name,
      owner: group.source,
      member: memberOf.has(group.id),
    }));
    const channels = (await store.channels.listOfUser(user.id)).map((channel) => ({
      key: channel.key,
      address: maskAddress(channel.key, channel.address),
      source: user.source,
      origin: channel.origin,
    }));
    const at = now();
    const pendingChannels = (await store.channelProofs.listOfUser(user.id))
      .filter((proof) => proof.origin === 'console' && proof.expiresAt > at && proof.triesLeft > 0)
      .map((proof) => ({
        key: proof.key,
        to: maskAddress(proof.key, proof.address),
        proofId: proof.id,
        expiresAt: new Date(proof.expiresAt).toISOString(),
      }));
    return {
      id: user.id,
      username: user.username,
      fullName: user.fullName,
      locale: user.locale,
      timeZone: user.timeZone,
      source: user.source,
      disabled: user.disabled,
      createdAt: new Date(user.createdAt).toISOString(),
      lastLoginAt: iso(user.lastLoginAt),
      editable: editableOf(user),
      groups,
      channels,
      pendingChannels,
    };
  }

  async create(caller: ConsoleCaller, input: AdminPersonCreate): Promise<{ id: string }> {
    const by = this.by(caller);
    const change = await this.deps.people.create(by, input).catch(asDomainError);
    return { id: change.user.id };
  }

  async update(
    caller: ConsoleCaller,
    userId: string,
    fields: AdminPersonUpdate,
  ): Promise<AdminPersonChanged> {
    const by = this.by(caller);
    return changedOf(await this.deps.people.update(by, userId, fields).catch(asDomainError));
  }

  async disable(caller: ConsoleCaller, userId: string): Promise<AdminPersonChanged> {
    return changedOf(await this.deps.people.disable(this.by(caller), userId).catch(asDomainError));
  }

  async enable(caller: ConsoleCaller, userId: string): Promise<AdminPersonChanged> {
    return changedOf(await this.deps.people.enable(this.by(caller), userId).catch(asDomainError));
  }

  async remove(caller: ConsoleCaller, userId: string): Promise<AdminPersonChanged> {
    return changedOf(await this.deps.people.remove(this.by(caller), userId).catch(asDomainError));
  }

  async endSessions(caller: ConsoleCaller, userId: string): Promise<AdminPersonChanged> {
    return changedOf(await this.deps.people.endSessions(this.by(caller), userId).catch(asDomainError));
  }

  /** Joins or leaves a group, as the group's owner allows (identity/groups.ts: another source's group 409). */
  async membership(
    caller: ConsoleCaller,
    userId: string,
    groupId: string,
    member: boolean,
  ): Promise<AdminPersonChanged> {
    const { actor } = this.by(caller);
    const { store, groups } = this.deps;
    const user = await store.users.findById(userId);
    const group = (await store.groups.list()).find((candidate) => candidate.id === groupId);
    if (user === undefined || group === undefined) throw notFound();
    const changed = await groups
      .changeMember(group, userId, member, { door: 'local', actor })
      .catch(asDomainError);
    return { changed: changed ? ['groups'] : [], sessionsEnded: 0 };
  }

  /**
   * Who may change a user's channels in the console: an administrator; a help-desk agent only for a
   * user in their scope (one outside is answered as one that does not exist, console-scope.ts) whose
   * "Help Desk" policy names the role; both past the passkey. Answers the user and the agent.
   */
  private async channelAgent(caller: ConsoleCaller, userId: string): Promise<ChannelAgent> {
    const { role } = caller.account;
    const user = await this.deps.store.users.findById(userId);
    if (user === undefined || !(await inScope(this.deps.store, caller.account, user.id))) throw notFound();
    if (role !== 'admin' && !(await this.deps.people.helpDeskMayHelp(role, user.id))) throw forbidden();
    return { user, actor: `console:${caller.account.username}` };
  }

  /**
   * Sends a code to a new or changed address of a local user's channel (channel-proof.ts, the rule
   * of the channels page): nothing changes until the agent enters the code the person reads out.
   */
  async startChannelProof(
    caller: ConsoleCaller,
    userId: string,
    input: { key: ChannelKey; address: string; locale?: string | undefined },
    clientAddress: string,
  ): Promise<{ proofId: string; to: string; expiresAt: string }> {
    const { user, actor } = await this.channelAgent(caller, userId);
    const started = await this.deps.channelProofs
      .start({
        user,
        actor,
        clientAddress,
        locale: input.locale,
        key: input.key,
        address: input.address,
        origin: 'console',
      })
      .catch(asDomainError);
    return { ...started, expiresAt: new Date(started.expiresAt).toISOString() };
  }

  /**
   * The code the person read out: the address becomes the channel (a changed one replaces the old
   * address in the transaction that ends the proof) and the person's other channels are told.
   */
  async proveChannel(
    caller: ConsoleCaller,
    userId: string,
    input: { proofId: string; code: string },
    clientAddress: string,
  ): Promise<AdminPersonChanged> {
    const { user, actor } = await this.channelAgent(caller, userId);
    const view = await this.deps.channelProofs
      .prove({ user, actor, clientAddress, proofId: input.proofId, code: input.code, origin: 'console' })
      .catch(asDomainError);
    return { changed: [`channels.${view.key}`], sessionsEnded: 0 };
  }

  /** Removes a local user's channel of that key (and a proof under way for it). */
  async removeChannel(
    caller: ConsoleCaller,
    userId: string,
    key: ChannelKey,
    clientAddress: string,
  ): Promise<AdminPersonChanged> {
    const { user, actor } = await this.channelAgent(caller, userId);
    const removed = await this.deps.channelProofs
      .remove({ user, actor, clientAddress, key, origin: 'console' })
      .catch(asDomainError);
    return { changed: removed ? [`channels.${key}`] : [], sessionsEnded: 0 };
  }

  async passwordLink(caller: ConsoleCaller, userId: string): Promise<AdminPasswordLink> {
    const link = await this.deps.passwordLinks.issue(this.by(caller), userId).catch(asDomainError);
    return { url: link.url, expiresAt: new Date(link.expiresAt).toISOString() };
  }
}

/** What the console may change of the user: the ownership table's answer for the door `local` (the administrators). */
function editableOf(user: User): AdminPerson['editable'] {
  const may = (part: Parameters<typeof mayChange>[1]) => mayChange(user, part, 'local');
  return {
    fullName: may('fullName'),
    locale: may('locale'),
    timeZone: may('timeZone'),
    password: may('password'),
    disabled: may('disabled'),
    removal: may('removal'),
    sessions: may('sessions'),
    channels: may('channels'),
  };
}

interface ChannelAgent {
  user: User;
  actor: string;
}
