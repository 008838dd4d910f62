import { isChannelKey, type ChannelKey } from '@dea/contract';
import type { Db } from './db.js';

/** An address waiting for its proof (one per user and channel key: a new one replaces it). */
export interface ChannelProof {
  id: string;
  userId: string;
  key: ChannelKey;
  address: string;
  /** Who asked for it: owner (the person on the channels page) or a console door later. */
  origin: string;
  /** The keyed hash of the code sent to the address. */
  codeHash: string;
  triesLeft: number;
  createdAt: number;
  expiresAt: number;
}

export interface ChannelUndoLink {
  tokenHash: string;
  userId: string;
  channelId: string;
  key: ChannelKey;
  /** The address registered (null for a link made before migration 0036). */
  address: string | null;
  createdAt: number;
  expiresAt: number;
}

/** An address its person may not register again until the help desk allows it (migration 0036). */
export interface BlockedAddress {
  userId: string;
  /** The send type: the same address under another key is the same address. */
  type: string;
  /** Canonical. */
  address: string;
  blockedAt: number;
  blockedBy: string;
}

export interface ChannelProofRepository {
  /** Starts the proof of an address, replacing the user's earlier one for that key. */
  start(proof: ChannelProof): Promise<void>;
  listOfUser(userId: string): Promise<ChannelProof[]>;
  findOfUser(userId: string, proofId: string): Promise<ChannelProof | undefined>;
  /**
   * Takes one try of a proof that is neither expired nor out of tries, in one statement: of any
   * number of tries at once, no more than the tries left get the proof; the others get undefined.
   */
  takeTry(userId: string, proofId: string, now: number): Promise<ChannelProof | undefined>;
  /** Ends a proof that succeeded: true for the one caller that ended it. */
  complete(proofId: string): Promise<boolean>;
  remove(userId: string, key: ChannelKey): Promise<boolean>;
  addUndoLink(link: Omit<ChannelUndoLink, 'address'> & { address?: string | null }): Promise<void>;
  /** Uses a link (any of the hashes: the secret's and the previous one's): true for the one caller that did. */
  useUndoLink(tokenHashes: readonly string[], at: number): Promise<ChannelUndoLink | undefined>;
  /** Blocks addresses for the user (again: the newer time and actor). */
  block(addresses: readonly BlockedAddress[]): Promise<void>;
  isBlocked(userId: string, type: string, address: string): Promise<boolean>;
  listBlocked(userId: string): Promise<BlockedAddress[]>;
  /** Allows the user's blocked addresses again (of one type and address, or all); answers those allowed. */
  allow(userId: string, only?: { type: string; address: string }): Promise<BlockedAddress[]>;
}

interface BlockedRow {
  user_id: string;
  type: string;
  address: string;
  blocked_at: number | string;
  blocked_by: string;
}

const toBlocked = (row: BlockedRow): BlockedAddress => ({
  userId: row.user_id,
  type: row.type,
  address: row.address,
  blockedAt: Number(row.blocked_at),
  blockedBy: row.blocked_by,
});

interface ProofRow {
  id: string;
  user_id: string;
  key: string;
  address: string;
  origin: string;
  code_hash: string;
  tries_left: number | string;
  created_at: number | string;
  expires_at: number | string;
}

function toProof(row: ProofRow): ChannelProof | undefined {
  if (!isChannelKey(row.key)) return undefined;
  return {
    id: row.id,
    userId: row.user_id,
    key: row.key,
    address: row.address,
    origin: row.origin,
    codeHash: row.code_hash,
    triesLeft: Number(row.tries_left),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

const present = <T>(value: T | undefined): value is T => value !== undefined;

export function channelProofRepository(db: Db): ChannelProofRepository {
  return {
    async start(proof) {
      const values = {
        id: proof.id,
        user_id: proof.userId,
        key: proof.key,
        address: proof.address,
        origin: proof.origin,
        code_hash: proof.codeHash,
        tries_left: proof.triesLeft,
        created_at: proof.createdAt,
        expires_at: proof.expiresAt,
      };
      await db
        .insertInto('channel_proofs')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['user_id', 'key']).doUpdateSet({
            id: proof.id,
            address: proof.address,
            origin: proof.origin,
            code_hash: proof.codeHash,
            tries_left: proof.triesLeft,
            created_at: proof.createdAt,
            expires_at: proof.expiresAt,
          }),
        )
        .execute();
    },
    async listOfUser(userId) {
      const rows = await db
        .selectFrom('channel_proofs')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('key')
        .execute();
      return rows.map(toProof).filter(present);
    },
    async findOfUser(userId, proofId) {
      const row = await db
        .selectFrom('channel_proofs')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', proofId)
        .executeTakeFirst();
      return row === undefined ? undefined : toProof(row);
    },
    async takeTry(userId, proofId, now) {
      const row = await db
        .updateTable('channel_proofs')
        .set((eb) => ({ tries_left: eb('tries_left', '-', 1) }))
        .where('id', '=', proofId)
        .where('user_id', '=', userId)
        .where('tries_left', '>', 0)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toProof(row);
    },
    async complete(proofId) {
      const result = await db.deleteFrom('channel_proofs').where('id', '=', proofId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async remove(userId, key) {
      const result = await db
        .deleteFrom('channel_proofs')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async addUndoLink(link) {
      await db
        .insertInto('channel_undo_links')
        .values({
          token_hash: link.tokenHash,
          user_id: link.userId,
          channel_id: link.channelId,
          key: link.key,
          address: link.address ?? null,
          created_at: link.createdAt,
          expires_at: link.expiresAt,
          used_at: null,
        })
        .execute();
    },
    async useUndoLink(tokenHashes, at) {
      if (tokenHashes.length === 0) return undefined;
      const row = await db
        .updateTable('channel_undo_links')
        .set({ used_at: at })
        .where('token_hash', 'in', [...tokenHashes])
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined || !isChannelKey(row.key)) return undefined;
      return {
        tokenHash: row.token_hash,
        userId: row.user_id,
        channelId: row.channel_id,
        key: row.key,
        address: row.address,
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
      };
    },
    async block(addresses) {
      for (const blocked of addresses)
        await db
          .insertInto('blocked_addresses')
          .values({
            user_id: blocked.userId,
            type: blocked.type,
            address: blocked.address,
            blocked_at: blocked.blockedAt,
            blocked_by: blocked.blockedBy,
          })
          .onConflict((oc) =>
            oc
              .columns(['user_id', 'type', 'address'])
              .doUpdateSet({ blocked_at: blocked.blockedAt, blocked_by: blocked.blockedBy }),
          )
          .execute();
    },
    async isBlocked(userId, type, address) {
      const row = await db
        .selectFrom('blocked_addresses')
        .select('user_id')
        .where('user_id', '=', userId)
        .where('type', '=', type)
        .where('address', '=', address)
        .executeTakeFirst();
      return row !== undefined;
    },
    async listBlocked(userId) {
      const rows = await db
        .selectFrom('blocked_addresses')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('blocked_at')
        .orderBy('type')
        .orderBy('address')
        .execute();
      return rows.map(toBlocked);
    },
    async allow(userId, only) {
      let query = db.deleteFrom('blocked_addresses').where('user_id', '=', userId);
      if (only !== undefined) query = query.where('type', '=', only.type).where('address', '=', only.address);
      return (await query.returningAll().execute()).map(toBlocked);
    },
  };
}
