import {
  chainMarkMacOf,
  chainValueOf,
  cutLinkOf,
  sameMac,
  stampFingerprintOf,
  stampIsValid,
} from '../../crypto/audit-chain.js';
import type { DerivedKeys, SecretKeys } from '../../crypto/secret-keys.js';
import { SECRET_FINGERPRINT_KEY } from '../../store/secret-fingerprint.js';
import type { AuditStampKey } from '../../store/sql/audit.js';
import type {
  AuditChainMark,
  AuditSealer,
  SealedAuditEntry,
  SealFinding,
  StampJudgement,
  Store,
  WrittenAuditEntry,
} from '../../store/store.js';

/** Entries sealed per transaction: the head of the chain is held for one batch at a time. */
export const SEAL_BATCH = 500;
const VERIFY_PAGE = 1000;
/** Entries set aside (or unsealed without a valid stamp) that verification names at most. */
const NAMED_FORGERIES = 5;

/** The key with which a store opened by this secret stamps the entries it writes (ADR 0032). */
export function auditStampKeyOf(keys: DerivedKeys): AuditStampKey {
  return { fingerprint: keys.fingerprint, key: keys.auditEntry };
}

/** The keys of the current and the previous secret, by fingerprint. */
function acceptedAuditKeys(keys: SecretKeys): Map<string, DerivedKeys> {
  const known = new Map<string, DerivedKeys>([[keys.fingerprint, keys]]);
  if (keys.previous !== undefined) known.set(keys.previous.fingerprint, keys.previous);
  return known;
}

/** What the keys make of an entry's stamp: valid, invalid, an older version's, or under an unknown secret. */
function judgeStamp(known: Map<string, DerivedKeys>, entry: WrittenAuditEntry): StampJudgement {
  if (entry.stamp === LEGACY_STAMP) return 'legacy';
  const fingerprint = stampFingerprintOf(entry.stamp);
  if (fingerprint === undefined || entry.stamp === null) return 'invalid';
  const keys = known.get(fingerprint);
  if (keys === undefined) return { unknownKey: fingerprint };
  return stampIsValid(keys.auditEntry, fingerprint, stampedOf(entry), entry.stamp) ? 'valid' : 'invalid';
}

const LEGACY_STAMP = 'legacy';

function stampedOf(entry: WrittenAuditEntry) {
  return {
    id: entry.id,
    at: entry.at,
    event: entry.event,
    userId: entry.userId,
    actor: entry.actor,
    clientAddress: entry.clientAddress,
    details: entry.detailsText,
  };
}

/** The sealer of the current secret's key (entries stamped under the previous secret's are taken too). */
export function auditSealer(keys: SecretKeys): AuditSealer {
  const known = acceptedAuditKeys(keys);
  return {
    chainKey: keys.fingerprint,
    chainOf: (previous, entry) => chainValueOf(keys.auditChain, previous, chainedOf(entry)),
    macOf: (mark) => chainMarkMacOf(keys.auditChain, mark),
    stampOf: (entry) => judgeStamp(known, entry),
    markIsSigned(mark) {
      const key = known.get(mark.chainKey)?.auditChain;
      return key === undefined ? undefined : sameMac(chainMarkMacOf(key, mark), mark.mac);
    },
    holds: (fingerprint) => known.has(fingerprint),
    cutLinkOf: (previous, previousSeq) => cutLinkOf(keys.auditChain, previous, previousSeq),
  };
}

/**
 * Gives the trail of a store nothing was ever written to its signed head at place 0, so that a
 * trail removed later (with its head) is told from one never written (ADR 0032). A server calls it
 * as it starts, before it records its secret's fingerprint.
 */
export async function beginAuditTrail(store: Store, keys: SecretKeys, now: number): Promise<void> {
  await store.auditTrail.begin(auditSealer(keys), now);
}

function chainedOf(entry: Omit<SealedAuditEntry, 'chain' | 'chainKey'>) {
  return {
    seq: entry.seq,
    id: entry.id,
    at: entry.at,
    event: entry.event,
    userId: entry.userId,
    actor: entry.actor,
    clientAddress: entry.clientAddress,
    details: entry.detailsText,
    stamp: entry.stamp,
  };
}

/**
 * Seals every entry written so far (by this process or any other writer): each gets the next
 * place of the trail and its chain value. Safe from any number of processes at once.
 */
export async function sealAuditTrail(
  store: Store,
  keys: SecretKeys,
  now: number,
  noticed?: (finding: SealFinding) => void,
  /**
   * A server's requests' turn between batches after one that took that long (RequestTurns): on the
   * embedded store a seal's batches would otherwise hold the event loop one after another, every
   * entry a sync or an import wrote at once. `dea`, which answers no requests, goes on at once.
   */
  turn?: (stepMs: number) => Promise<void>,
): Promise<number> {
  const sealer = { ...auditSealer(keys), ...(noticed !== undefined && { noticed }) };
  let sealed = 0;
  for (;;) {
    const began = performance.now();
    const count = await store.auditTrail.seal(sealer, SEAL_BATCH, now);
    sealed += count;
    if (count < SEAL_BATCH) return sealed;
    await turn?.(performance.now() - began);
  }
}

/** The first entry that breaks the chain, and why. */
export interface ChainBreak {
  seq: number;
  /** The entry's id; undefined when the entry is missing. */
  id: string | undefined;
  at: number | undefined;
  event: string | undefined;
  /** The mark (the head, a checkpoint) that is broken, when it is a mark. */
  mark?: string;
  reason: string;
}

/** An entry in the audit log that the product did not write (no valid stamp), never chained. */
export interface ForgedEntry {
  id: string;
  at: number;
  event: string;
  /** Why it is not the product's. */
  reason: string;
}

/**
 * A signed head the export carried to a destination (ADR 0032): the trail reached place `seq`,
 * whose chain value was `chain`, at `at`.
 */
export interface AuditAnchor {
  seq: number;
  chain: string;
  at: number;
  /** The fingerprint of the secret whose key signed it. */
  key: string;
  mac: string;
}

export interface AuditVerification {
  /** Entries whose chain value was checked. */
  checked: number;
  firstSeq: number | undefined;
  lastSeq: number | undefined;
  /** Entries written but not yet sealed (a server seals within a second; the CLI as it ends). */
  unsealed: number;
  broken: ChainBreak | undefined;
  /**
   * Entries in the audit log the product did not write: set aside by a seal, or waiting without a
   * valid stamp (the first few; `forgedCount` counts them all).
   */
  forged: ForgedEntry[];
  forgedCount: number;
  /** The anchor the end of the trail was checked against, if one was given. */
  anchor: AuditAnchor | undefined;
}

type KeyOf = (fingerprint: string) => Buffer | undefined;

function keyFinder(keys: SecretKeys): KeyOf {
  const known = new Map<string, Buffer>([[keys.fingerprint, keys.auditChain]]);
  if (keys.previous !== undefined) known.set(keys.previous.fingerprint, keys.previous.auditChain);
  return (fingerprint) => known.get(fingerprint);
}

function markIsSigned(mark: AuditChainMark, keyOf: KeyOf): boolean {
  const key = keyOf(mark.chainKey);
  return key !== undefined && sameMac(chainMarkMacOf(key, mark), mark.mac);
}

const described = (entry: SealedAuditEntry, reason: string): ChainBreak => ({
  seq: entry.seq,
  id: entry.id,
  at: entry.at,
  event: entry.event,
  reason,
});

const isoOf = (at: number): string => new Date(at).toISOString();

/** The mark an anchor's signature covers (an exported head, not the store's). */
function anchorMarkOf(anchor: Pick<AuditAnchor, 'seq' | 'chain' | 'at'>) {
  return { name: 'export', seq: anchor.seq, chain: anchor.chain, reason: 'export', at: anchor.at };
}

/** The signed head the export puts on the last record of each batch it sends (ADR 0032). */
export function exportedHeadOf(
  keys: DerivedKeys,
  last: { seq: number; chain: string },
  at: number,
): AuditAnchor {
  const mark = anchorMarkOf({ seq: last.seq, chain: last.chain, at });
  return {
    seq: last.seq,
    chain: last.chain,
    at,
    key: keys.fingerprint,
    mac: chainMarkMacOf(keys.auditChain, mark),
  };
}

/** What reading an exported copy found: its furthest head signed under a configured secret. */
export interface AnchorReading {
  anchor: AuditAnchor | undefined;
  /** Heads whose signature does not match (changed), or made under a secret not configured. */
  unsigned: number;
  unknownKey: number;
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function anchorCandidates(value: unknown, found: unknown[]): void {
  if (typeof value !== 'object' || value === null) return;
  const record = value as { head?: unknown; entries?: unknown };
  if (record.head !== undefined) found.push(record.head);
  if (Array.isArray(record.entries)) for (const entry of record.entries) anchorCandidates(entry, found);
}

/**
 * The furthest signed head in an exported copy of the trail: the audit file (JSON lines), a syslog
 * file (each message's JSON after its structured data) or the HTTPS endpoint's bodies, one a line.
 */
export function readAnchor(text: string, keys: SecretKeys): AnchorReading {
  const keyOf = keyFinder(keys);
  const reading: AnchorReading = { anchor: undefined, unsigned: 0, unknownKey: 0 };
  for (const line of text.split('\n')) {
    // A JSON line, or a syslog message whose JSON follows its structured data.
    const afterData = line.indexOf('] {');
    const parsed = [line.indexOf('{'), afterData < 0 ? -1 : afterData + 2]
      .filter((start) => start >= 0 && start < line.length)
      .map((start) => jsonOf(line.slice(start)))
      .find((value) => value !== undefined);
    if (parsed === undefined) continue;
    const found: unknown[] = [];
    anchorCandidates(parsed, found);
    for (const candidate of found) {
      const head = candidate as Partial<AuditAnchor>;
      if (
        typeof head.seq !== 'number' ||
        typeof head.chain !== 'string' ||
        typeof head.at !== 'number' ||
        typeof head.key !== 'string' ||
        typeof head.mac !== 'string'
      )
        continue;
      const key = keyOf(head.key);
      if (key === undefined) {
        reading.unknownKey += 1;
        continue;
      }
      const anchor = { seq: head.seq, chain: head.chain, at: head.at, key: head.key, mac: head.mac };
      if (!sameMac(chainMarkMacOf(key, anchorMarkOf(anchor)), anchor.mac)) {
        reading.unsigned += 1;
        continue;
      }
      if (reading.anchor === undefined || anchor.seq > reading.anchor.seq) reading.anchor = anchor;
    }
  }
  return reading;
}

/** The entries in the audit log the product did not write: set aside by a seal, or waiting unstamped. */
async function forgeriesOf(
  store: Store,
  keys: SecretKeys,
): Promise<{ forged: ForgedEntry[]; forgedCount: number }> {
  const known = acceptedAuditKeys(keys);
  const refused = await store.auditTrail.refused(NAMED_FORGERIES);
  const forged: ForgedEntry[] = refused.map((entry) => ({
    id: entry.id,
    at: entry.at,
    event: entry.event,
    reason: entry.setAside
      ? 'set aside by a seal: it carries no valid stamp of the product'
      : 'outside the trail: it was given a key or place no seal gives',
  }));
  let forgedCount = await store.auditTrail.refusedCount();
  // What waits for a seal: judged as a seal would, without a verification changing anything. An
  // entry stamped under the store's other secret (a rotation) is left to the seal.
  const stampedSealed = await store.auditTrail.stampsBegun();
  const storeSecret = await store.meta.get(SECRET_FINGERPRINT_KEY);
  let after: { at: number; id: string } | undefined;
  for (;;) {
    const page = await store.auditTrail.unsealed(after, VERIFY_PAGE);
    for (const entry of page) {
      const judgement = judgeStamp(known, entry);
      const reason =
        judgement === 'invalid'
          ? 'written without a valid stamp of the product (not yet set aside by a seal)'
          : judgement === 'legacy' && stampedSealed
            ? 'marked as left by an older version, after the product stamped its entries'
            : typeof judgement === 'object' && judgement.unknownKey !== storeSecret
              ? 'stamped under a secret that is neither configured nor the store’s (not yet set aside by a seal)'
              : undefined;
      if (reason === undefined) continue;
      forgedCount += 1;
      if (forged.length < NAMED_FORGERIES)
        forged.push({ id: entry.id, at: entry.at, event: entry.event, reason });
    }
    const last = page.at(-1);
    if (last === undefined || page.length < VERIFY_PAGE) break;
    after = { at: last.at, id: last.id };
  }
  return { forged, forgedCount };
}

/**
 * Checks the chain from its start (or the purge's last checkpoint), or from the first entry
 * written at or after `since`: every entry must follow the one before it, carry the chain value
 * its content and its predecessor give under a key of the current or previous secret and a valid
 * stamp of its writer, and the last must be the signed head, which a trail ever sealed must have.
 * With an anchor (a signed head an export destination received), the trail must reach it and hold
 * the entry it names. Answers the first entry that breaks it, and the entries the product did not
 * write.
 */
export async function verifyAuditTrail(
  store: Store,
  keys: SecretKeys,
  since?: number,
  anchor?: AuditAnchor,
): Promise<AuditVerification> {
  const keyOf = keyFinder(keys);
  const known = acceptedAuditKeys(keys);
  const marks = await store.auditTrail.marks();
  const unsealed = await store.auditTrail.unsealedCount();
  const result: AuditVerification = {
    checked: 0,
    firstSeq: undefined,
    lastSeq: undefined,
    unsealed,
    broken: undefined,
    ...(await forgeriesOf(store, keys)),
    anchor,
  };
  const missing = (seq: number, reason: string): AuditVerification => ({
    ...result,
    broken: { seq, id: undefined, at: undefined, event: undefined, reason },
  });
  const markBroken = (mark: AuditChainMark, reason: string): AuditVerification => ({
    ...result,
    broken: { seq: mark.seq, id: undefined, at: undefined, event: undefined, mark: mark.name, reason },
  });
  for (const mark of marks) {
    if (!markIsSigned(mark, keyOf)) {
      return markBroken(
        mark,
        keyOf(mark.chainKey) === undefined
          ? `it was signed under a secret that is not configured (set DEA_SECRET_PREVIOUS to the secret before)`
          : mark.name === 'head'
            ? `the head of the trail was changed (its signature does not match): the end of the trail cannot be vouched for`
            : `the chain's ${mark.name} was changed (its signature does not match)`,
      );
    }
  }
  const head = marks.find((mark) => mark.name === 'head');
  const checkpoints = marks.filter((mark) => mark.name !== 'head');
  const cuts = new Map(
    checkpoints.filter((mark) => mark.reason.startsWith('cut:')).map((mark) => [mark.seq, mark] as const),
  );
  // Where the purge removed entries: from the first place of a run, the checkpoint of its last.
  const runs = checkpoints
    .filter((mark) => mark.reason.startsWith('purge:'))
    .map((mark) => ({ from: Number(mark.reason.slice('purge:'.length)), mark }));
  // The run a place was in, if the purge removed it: its checkpoint.
  const purgedRun = (seq: number): AuditChainMark | undefined =>
    runs.find((run) => run.from <= seq && seq <= run.mark.seq)?.mark;
  let previousSeq = 0;
  let previous = '';
  // The chain value the trail holds at the anchor's place, once the walk passes it.
  let atAnchor: string | undefined;
  if (since !== undefined) {
    const first = await store.auditTrail.firstSealedSince(since);
    if (first === undefined) return result;
    if (first - 1 > previousSeq) {
      const [before] = await store.auditTrail.sealedAfter(first - 2, 1);
      if (before?.seq === first - 1) {
        previousSeq = before.seq;
        previous = before.chain;
      }
    }
    if (anchor !== undefined && anchor.seq <= previousSeq) {
      const [atPlace] = await store.auditTrail.sealedAfter(anchor.seq - 1, 1);
      if (atPlace?.seq === anchor.seq) atAnchor = atPlace.chain;
    }
  }
  // Once an entry with a stamp is sealed, every later one must have a valid stamp too: before
  // that, entries of a version before stamps.
  let stampsBegun = false;
  let skipThrough = 0;
  for (;;) {
    const page = await store.auditTrail.sealedAfter(previousSeq, VERIFY_PAGE);
    if (page.length === 0) break;
    for (const entry of page) {
      // Removed by the purge, run after run (or partly, if it was stopped: what remains of a run
      // may go too).
      let purged = entry.seq > previousSeq + 1 ? purgedRun(previousSeq + 1) : undefined;
      let inRun = false;
      while (purged !== undefined) {
        if (entry.seq <= purged.seq) {
          inRun = true;
          break;
        }
        previousSeq = purged.seq;
        previous = purged.chain;
        if (previousSeq === anchor?.seq) atAnchor = previous;
        purged = entry.seq > previousSeq + 1 ? purgedRun(previousSeq + 1) : undefined;
      }
      if (inRun) continue;
      if (entry.seq !== previousSeq + 1)
        return missing(previousSeq + 1, `entry #${previousSeq + 1} of the trail is missing (removed)`);
      result.firstSeq ??= entry.seq;
      result.lastSeq = entry.seq;
      if (entry.seq === anchor?.seq) atAnchor = entry.chain;
      if (entry.seq <= skipThrough) {
        previousSeq = entry.seq;
        previous = entry.chain;
        continue;
      }
      const key = keyOf(entry.chainKey);
      if (key === undefined) {
        // Sealed under a retired secret: a checkpoint of the next secret vouches for what follows.
        const rotation = checkpoints.find((mark) => mark.reason === 'rotation' && mark.seq >= entry.seq);
        if (rotation === undefined)
          return {
            ...result,
            broken: described(
              entry,
              'sealed under a secret that is not configured, and no later checkpoint vouches for it (set DEA_SECRET_PREVIOUS to the secret before)',
            ),
          };
        skipThrough = rotation.seq;
        previousSeq = entry.seq;
        previous = entry.chain;
        if (entry.seq === rotation.seq && entry.chain !== rotation.chain)
          return {
            ...result,
            broken: described(
              entry,
              'changed (its chain value is not the one the rotation checkpoint signed)',
            ),
          };
        continue;
      }
      const rotation = checkpoints.find((mark) => mark.reason === 'rotation' && mark.seq === entry.seq - 1);
      if (rotation !== undefined && rotation.chain !== previous && skipThrough >= entry.seq - 1)
        return {
          ...result,
          broken: described(entry, 'follows an entry the rotation checkpoint does not name'),
        };
      if (skipThrough === entry.seq - 1 && rotation !== undefined) previous = rotation.chain;
      const expected = chainValueOf(key, previous, chainedOf(entry));
      if (!sameMac(expected, entry.chain)) {
        // A seal found the end of the trail cut here and chained on from a link of its own.
        const link = cutLinkOf(key, previous, previousSeq);
        if (sameMac(chainValueOf(key, link, chainedOf(entry)), entry.chain)) {
          const cut = cuts.get(previousSeq);
          return missing(
            entry.seq,
            cut === undefined
              ? `the trail was cut before entry #${entry.seq}: a seal found its end removed or changed and went on from #${previousSeq} (its record of the cut was removed too)`
              : `the trail was cut before entry #${entry.seq}: the seal of ${isoOf(cut.at)} found that ${cut.reason.slice('cut:'.length)}, and went on from #${previousSeq}; entries after #${previousSeq} may have been removed`,
          );
        }
        return {
          ...result,
          broken: described(
            entry,
            'changed, moved or not following the entry before it (its chain value does not match)',
          ),
        };
      }
      // The writer's stamp (after the chain: a changed entry is told as changed): the product's, under a key of the current or previous secret.
      const stamp = judgeStamp(known, entry);
      if (stamp === 'invalid' && (stampsBegun || entry.stamp !== null))
        return {
          ...result,
          broken: described(entry, 'not written by the product (it carries no valid stamp of its writer)'),
        };
      if (stamp === 'legacy' && stampsBegun)
        return {
          ...result,
          broken: described(
            entry,
            'not written by the product (marked as an older version’s after stamps began)',
          ),
        };
      if (stamp === 'valid' || typeof stamp === 'object') stampsBegun = true;
      result.checked += 1;
      previousSeq = entry.seq;
      previous = entry.chain;
    }
  }
  for (let tail = purgedRun(previousSeq + 1); tail !== undefined; tail = purgedRun(previousSeq + 1)) {
    previousSeq = tail.seq;
    previous = tail.chain;
    if (previousSeq === anchor?.seq) atAnchor = previous;
  }
  if (head === undefined && (result.lastSeq !== undefined || previousSeq > 0))
    return missing(
      previousSeq + 1,
      `the head of the trail is missing (removed): entries after #${previousSeq} may have been removed with it`,
    );
  if (head === undefined && (await store.auditTrail.wasUsed()))
    return missing(
      1,
      'the trail and its head are missing, though the store was used (it records a seal, a server’s secret fingerprint, a checkpoint or a destination’s position): the trail was emptied',
    );
  if (head !== undefined && head.seq > previousSeq && head.seq > 0)
    return missing(
      previousSeq + 1,
      `entries #${previousSeq + 1} to #${head.seq} of the trail are missing (removed)`,
    );
  if (head !== undefined && head.seq === previousSeq && head.seq > 0 && head.chain !== previous)
    return missing(head.seq, `entry #${head.seq} is not the one the chain's head signed`);
  if (anchor !== undefined) {
    const copy = `the exported copy's signed head of ${isoOf(anchor.at)}`;
    if (anchor.seq > previousSeq)
      return missing(
        previousSeq + 1,
        `the trail ends at #${previousSeq}, but ${copy} shows it reached #${anchor.seq}: entries #${previousSeq + 1} to #${anchor.seq} were cut away (or the trail was rolled back)`,
      );
    if (atAnchor !== undefined && atAnchor !== anchor.chain)
      return missing(
        anchor.seq,
        `entry #${anchor.seq} is not the one ${copy} names: the trail was rolled back and written anew`,
      );
  }
  return result;
}

/**
 * How far the purge may remove audit entries: sealed ones (sealing first what waits), written
 * before `before`, and, unless `unexported`, received by each of `destinations`. Before anything
 * goes, each run of entries that may go gets a checkpoint signed with the current key that
 * records the chain value of its last entry, so that what remains still verifies. Answers the
 * last place the purge may remove (entries sealed later are left for the next purge).
 */
export async function prepareAuditPurge(
  store: Store,
  keys: SecretKeys,
  options: { before: number; destinations: readonly string[]; unexported: boolean; now: number },
): Promise<number> {
  await sealAuditTrail(store, keys, options.now);
  let through = await store.auditTrail.lastSeq();
  if (!options.unexported && options.destinations.length > 0) {
    const positions = await store.auditTrail.positions(options.destinations);
    through = Math.min(through, ...positions.values());
  }
  if (through <= 0) return 0;
  for (const run of await store.auditTrail.removableRuns(options.before, through)) {
    const mark = {
      name: `checkpoint:purge:${run.toSeq}`,
      seq: run.toSeq,
      chain: run.chain,
      reason: `purge:${run.fromSeq}`,
      at: options.now,
    };
    await store.auditTrail.addCheckpoint({
      ...mark,
      chainKey: keys.fingerprint,
      mac: chainMarkMacOf(keys.auditChain, mark),
    });
  }
  return through;
}
