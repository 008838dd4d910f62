import { isChannelKey, type ChannelKey } from '@dea/contract';
import type { Db } from './db.js';
import type { HotPath } from './hot-path/hot-path.js';

export interface Channel {
  /** The opaque recipient reference. */
  id: string;
  userId: string;
  key: ChannelKey;
  address: string;
  /** source: set by the directory, SCIM, the import or the CLI; owner: registered and proven by its person. */
  origin: ChannelOrigin;
  /** When its person last proved the address (null for a source's channel). */
  provenAt: number | null;
  /** When its person registered this address (the cooling-off time counts from here). */
  registeredAt: number | null;
}

export type ChannelOrigin = 'source' | 'owner';

/** A proven address written for its person (channel-proof.ts). */
export interface ProvenChannel {
  id: string;
  userId: string;
  key: ChannelKey;
  address: string;
  at: number;
}

export interface ChannelRepository {
  /**
   * Sets the user's channel of that key. Its reference stays while the address stays; a new
   * address gets the new reference, so a page still holding the old one cannot send to it.
   */
  set(channel: Pick<Channel, 'id' | 'userId' | 'key' | 'address'> & { createdAt: number }): Promise<Channel>;
  /**
   * Writes an address its person has just proven, as theirs (origin owner). Proving the same
   * address again keeps its reference and its registration time; a new address gets both anew.
   */
  setProven(channel: ProvenChannel): Promise<Channel>;
  listOfUser(userId: string): Promise<Channel[]>;
  findOfUser(userId: string, reference: string): Promise<Channel | undefined>;
  remove(userId: string, key: ChannelKey): Promise<boolean>;
  /** The ids of users with a channel whose address ends in these digits (at most `limit`). */
  findUserIdsByAddressEnding(digits: string, limit: number): Promise<string[]>;
}

export interface ChannelRow {
  id: string;
  user_id: string;
  key: string;
  address: string;
  origin: string;
  proven_at: number | string | null;
  registered_at: number | string | null;
}

const timeOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function toChannel(row: ChannelRow): Channel {
  if (!isChannelKey(row.key)) throw new Error(`unknown channel key in store: ${row.key}`);
  return {
    id: row.id,
    userId: row.user_id,
    key: row.key,
    address: row.address,
    origin: row.origin === 'owner' ? 'owner' : 'source',
    provenAt: timeOrNull(row.proven_at),
    registeredAt: timeOrNull(row.registered_at),
  };
}

/** The columns a Channel is made of. */
export const CHANNEL_COLUMNS = [
  'id',
  'user_id',
  'key',
  'address',
  'origin',
  'proven_at',
  'registered_at',
] as const;
/** The order every reader lists a user's channels in. */
export const CHANNEL_ORDER = ['created_at', 'key'] as const;
const [FIRST_ORDER, THEN_ORDER] = CHANNEL_ORDER;

/** Whether the row's key is one the product knows (a key of a later release is left out). */
export const isKnownChannelRow = (row: ChannelRow): boolean => isChannelKey(row.key);

/**
 * A user's channels, in the order every reader lists them (created, then key), as JSON rows: a
 * part of a larger statement (a code's issue reads them with it, for the notice), by `userRef`,
 * the SQL that names the user there.
 */
export const channelsOfUserJson = (userRef: string): string =>
  `(select json_agg(c order by c.${FIRST_ORDER}, c.${THEN_ORDER}) from (select ${CHANNEL_COLUMNS.join(', ')}, ${FIRST_ORDER} from channels where user_id = ${userRef}) c)`;

/** The Channels of rows as a read or channelsOfUserJson answers them (null: none); unknown keys left out. */
export const channelsOfRows = (rows: readonly ChannelRow[] | null): Channel[] =>
  (rows ?? []).filter(isKnownChannelRow).map(toChannel);

export function channelRepository(db: Db, hot: HotPath): ChannelRepository {
  return {
    async set(channel) {
      const row = await db
        .insertInto('channels')
        .values({
          id: channel.id,
          user_id: channel.userId,
          key: channel.key,
          address: channel.address,
          created_at: channel.createdAt,
        })
        .onConflict((oc) =>
          oc.columns(['user_id', 'key']).doUpdateSet((eb) => ({
            address: channel.address,
            // What a source sets is the source's, whoever had the key before.
            origin: 'source',
            id: eb
              .case()
              .when('channels.address', '=', channel.address)
              .then(eb.ref('channels.id'))
              .else(channel.id)
              .end(),
          })),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toChannel(row);
    },
    async setProven(channel) {
      const row = await db
        .insertInto('channels')
        .values({
          id: channel.id,
          user_id: channel.userId,
          key: channel.key,
          address: channel.address,
          created_at: channel.at,
          origin: 'owner',
          proven_at: channel.at,
          registered_at: channel.at,
        })
        .onConflict((oc) =>
          oc.columns(['user_id', 'key']).doUpdateSet((eb) => {
            const same = eb.and([
              eb('channels.address', '=', channel.address),
              eb('channels.origin', '=', 'owner'),
              eb('channels.registered_at', 'is not', null),
            ]);
            return {
              address: channel.address,
              origin: 'owner',
              proven_at: channel.at,
              id: eb.case().when(same).then(eb.ref('channels.id')).else(channel.id).end(),
              registered_at: eb
                .case()
                .when(same)
                .then(eb.ref('channels.registered_at'))
                .else(channel.at)
                .end(),
            };
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toChannel(row);
    },
    async findUserIdsByAddressEnding(digits, limit) {
      if (!/^\d+$/.test(digits)) return [];
      const rows = await db
        .selectFrom('channels')
        .select('user_id')
        .distinct()
        .where('address', 'like', `%${digits}`)
        .orderBy('user_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.user_id);
    },
    // Every code issued or sent looks up the user's other channels, to tell them: the hot path's read.
    listOfUser: (userId) => hot.channelsOfUser(userId),
    async findOfUser(userId, reference) {
      const row = await db
        .selectFrom('channels')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', reference)
        .executeTakeFirst();
      return row && isChannelKey(row.key) ? toChannel(row) : undefined;
    },
    async remove(userId, key) {
      const result = await db
        .deleteFrom('channels')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
