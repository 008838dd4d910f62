import type { ChannelKey } from '@dea/contract';
import { newChannelReference, newId } from '../../crypto/ids.js';
import type { Channel, Store, User } from '../../store/store.js';
import { NoSuchUser } from './people.js';
import { type ChangeBy, requireOwnership } from './user-ownership.js';

/** What a door's change of a channel did: the channel written (or removed), and whether anything changed. */
export interface ChannelChange {
  user: User;
  /** The channel as written; undefined for a removal. */
  channel: Channel | undefined;
  changed: boolean;
}

/**
 * The one way a person's channels are written, whatever the door: an operator (`dea channel`),
 * a source (the directory, SCIM, the import, through provisioning), the person proving their own
 * address and an agent proving one in the console (channels/channel-proof.ts), and an undo.
 * `set` and `remove` hold the person's row, check who owns their channels (user-ownership.ts),
 * write, stamp the person's `updatedAt` and append the audit entry in one transaction; what
 * changes nothing writes nothing. The `…In` forms do the same inside the caller's transaction,
 * for the changes that are part of a larger one (a provisioning batch, a proof's end, an undo),
 * whose caller has checked its own rules and writes its own audit entry.
 */
export class PersonChannels {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * The person's channel of the key set to the address (canonical: the caller checked it),
   * replacing the key's old address; audited as `channel.set`. A new address gets a new reference.
   */
  async set(by: ChangeBy, userId: string, key: ChannelKey, address: string): Promise<ChannelChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'channels', by.door);
      const current = await this.ofKey(store, user.id, key);
      if (current?.address === address) return { user, channel: current, changed: false };
      return { user, channel: await this.setIn(store, by, user, key, address, at), changed: true };
    });
  }

  /** The person's channel of the key removed; audited as `channel.removed`. False when they had none. */
  async remove(by: ChangeBy, userId: string, key: ChannelKey): Promise<ChannelChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'channels', by.door);
      const changed = await this.removeIn(store, by, user, key, at);
      return { user, channel: undefined, changed };
    });
  }

  /**
   * `set` inside the caller's transaction, for a user the caller holds and whose ownership it
   * checked (provisioning: the source's own channels, written only when they differ).
   */
  async setIn(
    store: Store,
    by: ChangeBy,
    user: Pick<User, 'id'>,
    key: ChannelKey,
    address: string,
    at: number,
  ): Promise<Channel> {
    const channel = await store.channels.set({
      id: newChannelReference(),
      userId: user.id,
      key,
      address,
      createdAt: at,
    });
    await store.users.update(user.id, { updatedAt: at });
    await store.audit.append(
      { event: 'channel.set', userId: user.id, actor: by.actor, details: { ...by.details, key } },
      at,
    );
    return channel;
  }

  /** `remove` inside the caller's transaction, as `setIn`. False when the key had no channel. */
  async removeIn(
    store: Store,
    by: ChangeBy,
    user: Pick<User, 'id'>,
    key: ChannelKey,
    at: number,
  ): Promise<boolean> {
    if (!(await store.channels.remove(user.id, key))) return false;
    await store.users.update(user.id, { updatedAt: at });
    await store.audit.append(
      { event: 'channel.removed', userId: user.id, actor: by.actor, details: { ...by.details, key } },
      at,
    );
    return true;
  }

  /**
   * An address proven by a code, written inside the proof's transaction (channel-proof.ts, which
   * checked the rules, holds the person's row and audits it as `channel.registered`): an agent's
   * in the console replaces the key's address as an operator's does; the person's own is theirs
   * (origin owner, keeping its reference and registration time when proven again).
   */
  async writeProven(
    store: Store,
    proven: { userId: string; key: ChannelKey; address: string; byConsole: boolean },
    at: number,
  ): Promise<Channel> {
    const { userId, key, address } = proven;
    return proven.byConsole
      ? store.channels.set({ id: newId(), userId, key, address, createdAt: at })
      : store.channels.setProven({ id: newId(), userId, key, address, at });
  }

  /**
   * A channel taken away inside the caller's transaction (a person's or an agent's removal, an
   * undo), whose caller checked its rules and audits it. False when the key had no channel.
   */
  takeAway(store: Store, userId: string, key: ChannelKey): Promise<boolean> {
    return store.channels.remove(userId, key);
  }

  private async ofKey(store: Store, userId: string, key: ChannelKey): Promise<Channel | undefined> {
    return (await store.channels.listOfUser(userId)).find((channel) => channel.key === key);
  }

  private async forChange(store: Store, userId: string): Promise<User> {
    const user = await store.users.findForChange(userId);
    if (user === undefined) throw new NoSuchUser(userId);
    return user;
  }
}
