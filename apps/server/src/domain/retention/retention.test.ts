import { usernameOrThrow } from '@dea/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { openTestStore, STORE_KINDS, type TestStore } from '../../testing/stores.js';
import {
  pauseAfterBatch,
  pauseFor,
  PURGE_LEASE,
  type PurgeOutcome,
  purgeCutoffs,
  PurgeSchedule,
  purgeStore,
  type RetentionRules,
} from './retention.js';

const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);
/** How long each batch of the slowed store below keeps the purge busy, at least. */
const BATCH_MS = 8;

function rulesWith(busyPercent: number, batchSize = 10): RetentionRules {
  return {
    retention: {
      auditMs: null,
      auditUnexported: false,
      outboxMs: null,
      sessionGraceMs: 0,
      intervalMs: 0,
      batchSize,
      busyPercent,
    },
    auditDestinations: [],
    sessionIdleMs: 60_000,
    sessionAbsoluteMs: 3_600_000,
    consoleIdleMs: 60_000,
    signinWindowMs: 60_000,
  };
}

let testStore: TestStore;

beforeEach(async () => {
  testStore = await openTestStore('sqlite');
  const { store } = testStore;
  const userId = newId();
  await store.users.create({
    id: userId,
    username: usernameOrThrow('pat'),
    passwordHash: 'x',
    fullName: 'Pat',
    locale: 'en',
    createdAt: NOW,
  });
  for (let index = 0; index < 45; index += 1) {
    const code = {
      id: newId(),
      userId,
      codeHash: `h-${index}`,
      createdAt: NOW - 120_000,
      expiresAt: NOW - 60_000,
      uses: 1,
      channelType: null,
    };
    expect(await store.codes.issue(code, 100, { event: 'code.issued', userId })).toEqual({
      issued: true,
      channels: [],
    });
  }
  // Each batch keeps the purge busy BATCH_MS by its clock, as a batch of a large purge would.
  clock = 0;
  const removeBatch = store.retention.removeBatch.bind(store.retention);
  store.retention.removeBatch = async (...args) => {
    clock += BATCH_MS;
    return removeBatch(...args);
  };
});

/** The purge's monotonic clock in these tests: only a batch moves it. */
let clock = 0;
const elapsed = (): number => clock;

afterEach(() => testStore.dispose());

/** A purge of the codes that records the pauses it asks for, instead of waiting. */
function purgeRecording(busyPercent: number, pauses: number[], signal?: AbortSignal): Promise<PurgeOutcome> {
  return purgeStore(testStore.store, rulesWith(busyPercent), {
    now: () => NOW,
    holder: 'test',
    actor: 'test',
    kinds: ['codes'],
    elapsed,
    ...(signal !== undefined && { signal }),
    pause: (ms) => {
      pauses.push(ms);
      return Promise.resolve();
    },
  });
}

describe('the pace of the retention purge', () => {
  it('waits (100 - p) / p times as long as a batch kept it busy', () => {
    expect(pauseAfterBatch(10, 20)).toBe(40);
    expect(pauseAfterBatch(10, 50)).toBe(10);
    expect(pauseAfterBatch(10, 100)).toBe(0);
    expect(pauseAfterBatch(3, 1)).toBe(297);
  });

  it('pauses after each full batch so as to be busy at most DEA_PURGE_BUSY_PERCENT of the time', async () => {
    const pauses: number[] = [];
    const outcome = await purgeRecording(25, pauses);
    expect(outcome).toEqual({ ran: true, removed: { codes: 45 }, stopped: false });
    // Four full batches of 10, then one of 5 that ends the kind: a pause after each full one.
    expect(pauses).toEqual([3 * BATCH_MS, 3 * BATCH_MS, 3 * BATCH_MS, 3 * BATCH_MS]);
  });

  it('does not wait at 100 percent', async () => {
    const pauses: number[] = [];
    await purgeRecording(100, pauses);
    expect(pauses).toEqual([0, 0, 0, 0]);
  });

  it('stops between two batches when told to, releases its lease and audits what went', async () => {
    const stopping = new AbortController();
    const pauses: number[] = [];
    const outcome = await purgeStore(testStore.store, rulesWith(50), {
      now: () => NOW,
      elapsed,
      holder: 'test',
      actor: 'test',
      signal: stopping.signal,
      pause: (ms) => {
        pauses.push(ms);
        if (pauses.length === 2) stopping.abort();
        return Promise.resolve();
      },
    });
    expect(outcome).toEqual({ ran: true, removed: { codes: 20 }, stopped: true });
    expect(await testStore.store.leases.find(PURGE_LEASE)).toBeUndefined();
    const [audited] = await testStore.store.audit.list({ event: 'store.purged', limit: 1 });
    expect(audited?.details).toEqual({ removed: { codes: 20 } });
  });
});

describe('a purge told to stop during its pause', () => {
  it('stops at once instead of waiting the pause out', async () => {
    // The first batch keeps the purge busy 100 ms: at 1% it would then wait over 9.9 s, past this
    // test's time limit of 3 s. The signal comes once the product's pause has begun.
    const removeBatch = testStore.store.retention.removeBatch.bind(testStore.store.retention);
    const stopping = new AbortController();
    let batches = 0;
    testStore.store.retention.removeBatch = async (...args) => {
      batches += 1;
      if (batches === 1) clock += 100;
      return removeBatch(...args);
    };
    const pauses: number[] = [];
    const outcome = await purgeStore(testStore.store, rulesWith(1), {
      now: () => NOW,
      elapsed,
      holder: 'test',
      actor: 'test',
      signal: stopping.signal,
      pause: (ms, signal) => {
        pauses.push(ms);
        const pausing = pauseFor(ms, signal);
        stopping.abort();
        return pausing;
      },
    });
    expect(outcome).toEqual({ ran: true, removed: { codes: 10 }, stopped: true });
    expect(batches).toBe(1);
    expect(pauses).toEqual([pauseAfterBatch(100 + BATCH_MS, 1)]);
  }, 3000);

  it('counts as finished when the signal comes with its last batch', async () => {
    const stopping = new AbortController();
    const removeBatch = testStore.store.retention.removeBatch.bind(testStore.store.retention);
    testStore.store.retention.removeBatch = async (...args) => {
      const removed = await removeBatch(...args);
      // The last batch of the codes: fewer than the batch size.
      if (removed < 10) stopping.abort();
      return removed;
    };
    const outcome = await purgeRecording(100, [], stopping.signal);
    expect(outcome).toEqual({ ran: true, removed: { codes: 45 }, stopped: false });
  });
});

describe('the purges of an instance', () => {
  it('never runs two at once, and stops the one under way at shutdown', async () => {
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    const signals: AbortSignal[] = [];
    const schedule = new PurgeSchedule(async (signal) => {
      signals.push(signal);
      await holding;
      return { ran: true, removed: {}, stopped: signal.aborted };
    });
    const first = schedule.start();
    expect(first).toBeDefined();
    expect(schedule.start()).toBeUndefined();
    let stopped = false;
    const stop = schedule.stop().then(() => {
      stopped = true;
    });
    expect(signals[0]?.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stop;
    expect(await first).toEqual({ ran: true, removed: {}, stopped: true });
    expect(schedule.start()).toBeUndefined();
    expect(signals).toHaveLength(1);
  });

  it('starts the next one once the last has finished', async () => {
    let runs = 0;
    const schedule = new PurgeSchedule(() => {
      runs += 1;
      return Promise.resolve({ ran: true, removed: {}, stopped: false });
    });
    await schedule.start();
    await schedule.start();
    expect(runs).toBe(2);
  });
});

describe.each(STORE_KINDS)(
  'the purge of proofs, challenges, registration sessions and one-time links on %s',
  (kind) => {
    storeTest.override('storeKind', kind);

    const HOUR = 3_600_000;
    /** The retention's grace (DEA_RETENTION_SESSION_HOURS): an hour. */
    const GRACE = HOUR;
    const LONG_AGO = NOW - GRACE - 60_000;
    const LATELY = NOW - GRACE + 60_000;

    storeTest(
      'removes each once expired or used longer ago than the grace, in batches, and keeps the others until then',
      async ({ testStore: { store } }) => {
        let made = 0;
        const person = async () => {
          made += 1;
          const id = newId();
          await store.users.create({
            id,
            username: usernameOrThrow(`person-${made}`),
            passwordHash: 'x',
            fullName: `Person ${made}`,
            locale: 'en',
            createdAt: LONG_AGO - HOUR,
          });
          return id;
        };
        const createdAt = LONG_AGO - HOUR;
        /** Each kind: one expired long ago, one used long ago (links), one expired lately (kept). */
        for (const expiresAt of [LONG_AGO, LATELY]) {
          await store.channelProofs.start({
            id: newId(),
            userId: await person(),
            key: 'email',
            address: 'p@example.org',
            origin: 'owner',
            codeHash: 'h',
            triesLeft: 3,
            createdAt,
            expiresAt,
          });
          const challenge = { id: newId(), userId: await person(), method: 'channel-code', channelId: null };
          await store.registration.addChallenge({
            ...challenge,
            codeHash: 'h',
            triesLeft: 3,
            createdAt,
            expiresAt,
          });
          await store.registration.addOpen({
            id: newId(),
            userId: await person(),
            method: 'link',
            channelId: null,
            tokenHash: `open-${newId()}`,
            createdAt,
            expiresAt,
            openedAt: createdAt,
          });
          await store.registration.addOidcFlow({
            state: newId(),
            userId: await person(),
            nonce: 'n',
            codeVerifier: 'v',
            // Its sign-in at the provider may take 10 minutes: expired then.
            createdAt: expiresAt - 10 * 60_000,
          });
        }
        /** Links: one expired long ago, one used long ago, one expired lately and one used lately (kept). */
        const links: [number, number | null][] = [
          [LONG_AGO, null],
          [NOW + HOUR, LONG_AGO],
          [LATELY, null],
          [NOW + HOUR, LATELY],
        ];
        for (const [expiresAt, usedAt] of links) {
          const userId = await person();
          const tokenHash = `t-${newId()}`;
          await store.channelProofs.addUndoLink({
            tokenHash,
            userId,
            channelId: newId(),
            key: 'email',
            createdAt,
            expiresAt,
          });
          if (usedAt !== null)
            expect(await store.channelProofs.useUndoLink([tokenHash], usedAt)).toBeDefined();
          await store.registration.addLink({
            tokenHash,
            userId,
            createdBy: 'console:admin',
            createdAt,
            expiresAt,
          });
          if (usedAt !== null)
            expect(await store.registration.useLink(userId, [tokenHash], usedAt)).toBe(true);
          await store.passwordLinks.add({ tokenHash, userId, createdAt, expiresAt });
          if (usedAt !== null) expect(await store.passwordLinks.use([tokenHash], usedAt)).toBe(true);
          const accountId = newId();
          await store.console.createAccount({
            id: accountId,
            username: usernameOrThrow(`admin-${made}`),
            displayName: 'Admin',
            role: 'admin',
            passwordHash: '',
            createdAt,
          });
          await store.console.addEnrolmentLink({ tokenHash, accountId, createdAt, expiresAt });
          if (usedAt !== null)
            expect(await store.console.useEnrolmentLink([tokenHash], accountId, usedAt)).toBe(true);
          // A remembered device: forgotten where the link was used.
          await store.rememberedDevices.add({ id: newId(), userId, tokenHash, createdAt, expiresAt });
          if (usedAt !== null) expect(await store.rememberedDevices.forgetAll(userId, usedAt)).toBe(1);
        }
        // Twelve more expired password links: the purge goes through them in batches of 10.
        for (let index = 0; index < 12; index += 1)
          await store.passwordLinks.add({
            tokenHash: `more-${index}`,
            userId: await person(),
            createdAt,
            expiresAt: LONG_AGO,
          });

        const kinds = [
          'channelProofs',
          'channelUndoLinks',
          'registrationChallenges',
          'registrationSessions',
          'registrationLinks',
          'registrationOidcFlows',
          'passwordLinks',
          'consoleEnrolmentLinks',
          'rememberedDevices',
        ] as const;
        const rules = rulesWith(50);
        rules.retention.sessionGraceMs = GRACE;
        const pauses: number[] = [];
        const outcome = await purgeStore(store, rules, {
          now: () => NOW,
          holder: 'test',
          actor: 'test',
          elapsed: () => 0,
          pause: (ms) => {
            pauses.push(ms);
            return Promise.resolve();
          },
        });
        const removed = {
          channelProofs: 1,
          channelUndoLinks: 2,
          registrationChallenges: 1,
          registrationSessions: 1,
          registrationLinks: 2,
          registrationOidcFlows: 1,
          passwordLinks: 14,
          consoleEnrolmentLinks: 2,
          rememberedDevices: 2,
        };
        expect(outcome).toMatchObject({ ran: true, removed, stopped: false });
        // One full batch (10 of the 14 password links), then the rest: one pause.
        expect(pauses).toEqual([0]);
        const [audited] = await store.audit.list({ event: 'store.purged', limit: 1 });
        expect(audited?.details).toMatchObject({ removed });
        // What was kept goes once its grace has passed too: one of each kind (two of each link).
        const later = purgeCutoffs(rules, NOW + 2 * 60_000);
        const left = Object.fromEntries(
          await Promise.all(
            kinds.map(async (each) => [each, await store.retention.count(each, later)] as const),
          ),
        );
        expect(left).toEqual({
          channelProofs: 1,
          channelUndoLinks: 2,
          registrationChallenges: 1,
          registrationSessions: 1,
          registrationLinks: 2,
          registrationOidcFlows: 1,
          passwordLinks: 2,
          consoleEnrolmentLinks: 2,
          rememberedDevices: 2,
        });
        expect(await store.retention.count('registrationSessions', purgeCutoffs(rules, NOW))).toBe(0);
      },
    );
  },
);
