import { acceptedKeys, type SecretKeys } from '../../crypto/secret-keys.js';
import { REPLACED_KEY, ROTATED_AT_KEY } from '../../store/secret-fingerprint.js';
import type { Store } from '../../store/store.js';
import type { OutboxSealing } from '../ports/outbox-sealing.js';

/** Where a rotation of DEA_SECRET stands: what still needs the previous secret, and until when. */
export interface SecretStatus {
  fingerprint: string;
  previousFingerprint: string | undefined;
  /** When the store's secret was last replaced, and the fingerprint it replaced; null: never. */
  rotatedAt: number | null;
  replaced: string | undefined;
  /** Unused codes made before the rotation, and when the last expires. */
  codes: { count: number; lastExpiresAt: number | null };
  /** Open sessions started before the rotation, and when the last must end. */
  sessions: { count: number; endBy: number | null };
  /** Service keys not used since the rotation (their hash is of the previous secret). */
  serviceKeys: { id: string; name: string }[];
  /** Outbox messages only the previous secret opens (dea secret reseal seals them again). */
  outbox: number;
  /** When DEA_SECRET_PREVIOUS can go if nothing else needs it: null once nothing does. */
  previousNeededUntil: number | null;
}

export async function secretStatus(
  store: Store,
  keys: SecretKeys,
  sessionAbsoluteMs: number,
  now: number,
  sealing: OutboxSealing,
): Promise<SecretStatus> {
  const rotatedText = await store.meta.get(ROTATED_AT_KEY);
  const rotatedAt = rotatedText === undefined ? null : Number(rotatedText);
  const replaced = await store.meta.get(REPLACED_KEY);
  const usage =
    rotatedAt === null
      ? { codes: { count: 0, lastExpiresAt: null }, sessions: { count: 0, lastStartedAt: null } }
      : await store.secretUsage.madeBefore(rotatedAt, now, now - sessionAbsoluteMs);
  const serviceKeys =
    rotatedAt === null
      ? []
      : (await store.serviceKeys.list())
          .filter((key) => key.revokedAt === null && key.hashedAt < rotatedAt)
          .map(({ id, name }) => ({ id, name }));
  let outbox = 0;
  for (const message of await store.outbox.list(100_000)) {
    if (!sealing.opens([keys.seal], message)) outbox += 1;
  }
  const sessionsEndBy =
    usage.sessions.lastStartedAt === null ? null : usage.sessions.lastStartedAt + sessionAbsoluteMs;
  const until = Math.max(usage.codes.lastExpiresAt ?? 0, sessionsEndBy ?? 0);
  return {
    fingerprint: keys.fingerprint,
    previousFingerprint: keys.previous?.fingerprint,
    rotatedAt,
    replaced,
    codes: usage.codes,
    sessions: { count: usage.sessions.count, endBy: sessionsEndBy },
    serviceKeys,
    outbox,
    previousNeededUntil: until > now ? until : null,
  };
}

/** Seals again with the current key every outbox message only the previous secret opens. */
export async function resealOutbox(
  store: Store,
  keys: SecretKeys,
  sealing: OutboxSealing,
): Promise<{ resealed: number; unreadable: number }> {
  let resealed = 0;
  let unreadable = 0;
  for (const message of await store.outbox.list(100_000)) {
    // Not sealed with the current key: sealed again below, if the previous one opens it.
    if (sealing.opens([keys.seal], message)) continue;
    try {
      const sealed = sealing.reseal(acceptedKeys(keys, 'seal'), keys.seal, message);
      if (await store.outbox.reseal(message.id, message.sealed, sealed)) resealed += 1;
    } catch {
      unreadable += 1;
    }
  }
  return { resealed, unreadable };
}
