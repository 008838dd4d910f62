import { chainMarkMacOf, chainValueOf, sameMac } from '../crypto/audit-chain.js';
import type { DerivedKeys, SecretKeys } from '../crypto/secret-keys.js';
import type { AuditChainMark, AuditSealer, SealedAuditEntry, Store } from '../store/store.js';

/** Entries sealed per transaction: the head of the chain is held for one batch at a time. */
export const SEAL_BATCH = 500;
const VERIFY_PAGE = 1000;

/** The sealer of the current secret's key. */
export function auditSealer(keys: DerivedKeys): AuditSealer {
  return {
    chainKey: keys.fingerprint,
    chainOf: (previous, entry) => chainValueOf(keys.auditChain, previous, chainedOf(entry)),
    macOf: (mark) => chainMarkMacOf(keys.auditChain, mark),
  };
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
  };
}

/**
 * Seals every entry written so far (by this process or any other writer): each gets the next
 * place of the trail and its chain value. Safe from any number of processes at once.
 */
export async function sealAuditTrail(store: Store, keys: SecretKeys, now: number): Promise<number> {
  const sealer = auditSealer(keys);
  let sealed = 0;
  for (;;) {
    const count = await store.auditTrail.seal(sealer, SEAL_BATCH, now);
    sealed += count;
    if (count < SEAL_BATCH) return sealed;
  }
}

/** The first entry that breaks the chain, and why. */
export interface ChainBreak {
  seq: number;
  /** The entry's id; undefined when the entry is missing. */
  id: string | undefined;
  at: number | undefined;
  event: string | undefined;
  reason: string;
}

export interface AuditVerification {
  /** Entries whose chain value was checked. */
  checked: number;
  firstSeq: number | undefined;
  lastSeq: number | undefined;
  /** Entries written but not yet sealed (a server seals within a second; the CLI as it ends). */
  unsealed: number;
  broken: ChainBreak | undefined;
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

/**
 * Checks the chain from its start (or the purge's last checkpoint), or from the first entry
 * written at or after `since`: every entry must follow the one before it, carry the chain value
 * its content and its predecessor give under a key of the current or previous secret, and the
 * last must be the signed head. Answers the first entry that breaks it.
 */
export async function verifyAuditTrail(
  store: Store,
  keys: SecretKeys,
  since?: number,
): Promise<AuditVerification> {
  const keyOf = keyFinder(keys);
  const marks = await store.auditTrail.marks();
  const unsealed = await store.auditTrail.unsealedCount();
  const result: AuditVerification = {
    checked: 0,
    firstSeq: undefined,
    lastSeq: undefined,
    unsealed,
    broken: undefined,
  };
  const missing = (seq: number, reason: string): AuditVerification => ({
    ...result,
    broken: { seq, id: undefined, at: undefined, event: undefined, reason },
  });
  for (const mark of marks) {
    if (mark.seq > 0 && !markIsSigned(mark, keyOf)) {
      return missing(
        mark.seq,
        keyOf(mark.chainKey) === undefined
          ? `the chain's ${mark.name} was signed under a secret that is not configured (set DEA_SECRET_PREVIOUS to the secret before)`
          : `the chain's ${mark.name} was changed (its signature does not match)`,
      );
    }
  }
  const head = marks.find((mark) => mark.name === 'head');
  const checkpoints = marks.filter((mark) => mark.name !== 'head');
  // Where the purge removed entries: from the first place of a run, the checkpoint of its last.
  const runs = checkpoints
    .filter((mark) => mark.reason.startsWith('purge:'))
    .map((mark) => ({ from: Number(mark.reason.slice('purge:'.length)), mark }));
  // The run a place was in, if the purge removed it: its checkpoint.
  const purgedRun = (seq: number): AuditChainMark | undefined =>
    runs.find((run) => run.from <= seq && seq <= run.mark.seq)?.mark;
  let previousSeq = 0;
  let previous = '';
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
  }
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
        purged = entry.seq > previousSeq + 1 ? purgedRun(previousSeq + 1) : undefined;
      }
      if (inRun) continue;
      if (entry.seq !== previousSeq + 1)
        return missing(previousSeq + 1, `entry #${previousSeq + 1} of the trail is missing (removed)`);
      result.firstSeq ??= entry.seq;
      result.lastSeq = entry.seq;
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
      if (!sameMac(expected, entry.chain))
        return {
          ...result,
          broken: described(
            entry,
            'changed, moved or not following the entry before it (its chain value does not match)',
          ),
        };
      result.checked += 1;
      previousSeq = entry.seq;
      previous = entry.chain;
    }
  }
  for (let tail = purgedRun(previousSeq + 1); tail !== undefined; tail = purgedRun(previousSeq + 1)) {
    previousSeq = tail.seq;
    previous = tail.chain;
  }
  if (head !== undefined && head.seq > previousSeq && head.seq > 0)
    return missing(
      previousSeq + 1,
      `entries #${previousSeq + 1} to #${head.seq} of the trail are missing (removed)`,
    );
  if (head !== undefined && head.seq === previousSeq && head.seq > 0 && head.chain !== previous)
    return missing(head.seq, `entry #${head.seq} is not the one the chain's head signed`);
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
