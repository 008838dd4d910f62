import { describe, expect, it } from 'vitest';
import type { AttemptSettings } from './delivery-config.js';
import type { DeliveryProvider, DeliveryResult, OutgoingMessage } from './delivery.js';
import { deliverWithRetry, type RetryClock } from './retrying-delivery.js';

const MESSAGE: OutgoingMessage = {
  channelType: 'sms',
  recipient: '+49 170 5550112',
  subject: 'Your emergency code',
  text: 'Your emergency code is ABCD2345.',
  userId: 'user-1',
  idempotencyKey: 'key-1',
};
const SETTINGS: AttemptSettings = { timeoutMs: 1000, retries: 2, backoffMs: 100, deadlineMs: 10_000 };

/** A clock whose sleeps pass at once and are recorded. */
function fakeClock(): RetryClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    random: () => 1,
  };
}

function scripted(results: DeliveryResult[]): DeliveryProvider & { seen: OutgoingMessage[] } {
  const seen: OutgoingMessage[] = [];
  return {
    name: 'scripted',
    seen,
    deliver: async (message) => {
      seen.push(message);
      return results[seen.length - 1] ?? { ok: false, transient: true, reason: 'no more' };
    },
  };
}

const transient = { ok: false, transient: true, reason: 'HTTP 503' } as const;
const permanent = { ok: false, transient: false, reason: 'HTTP 400' } as const;

describe('deliverWithRetry', () => {
  it('retries transient failures with doubling backoff, the same message and key every time', async () => {
    const provider = scripted([transient, transient, { ok: true, providerMessageId: 'm1' }]);
    const clock = fakeClock();
    const outcome = await deliverWithRetry(provider, MESSAGE, SETTINGS, clock);
    expect(outcome).toEqual({ ok: true, providerMessageId: 'm1', attempts: 3 });
    expect(clock.slept).toEqual([100, 200]);
    expect(new Set(provider.seen.map((message) => message.idempotencyKey))).toEqual(new Set(['key-1']));
  });

  it('gives up after the configured retries', async () => {
    const provider = scripted([transient, transient, transient, transient]);
    const outcome = await deliverWithRetry(provider, MESSAGE, SETTINGS, fakeClock());
    expect(outcome).toEqual({ ...transient, attempts: 3 });
    expect(provider.seen).toHaveLength(3);
  });

  it('never retries a permanent failure', async () => {
    const provider = scripted([permanent]);
    expect(await deliverWithRetry(provider, MESSAGE, SETTINGS, fakeClock())).toEqual({
      ...permanent,
      attempts: 1,
    });
  });

  it('stops retrying when the next attempt would pass the deadline', async () => {
    const provider = scripted([transient, transient, transient]);
    const clock = fakeClock();
    const outcome = await deliverWithRetry(
      provider,
      MESSAGE,
      { ...SETTINGS, backoffMs: 5000, deadlineMs: 5000 },
      clock,
    );
    expect(outcome.attempts).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('turns a thrown error into a transient failure named by its code only', async () => {
    const provider: DeliveryProvider = {
      name: 'throwing',
      deliver: () => Promise.reject(Object.assign(new Error('secret +49 170 5550112'), { code: 'EBOOM' })),
    };
    const outcome = await deliverWithRetry(provider, MESSAGE, { ...SETTINGS, retries: 0 }, fakeClock());
    expect(outcome).toEqual({ ok: false, transient: true, reason: 'provider error EBOOM', attempts: 1 });
  });

  it('bounds an attempt that never answers by the timeout and aborts its signal', async () => {
    let signal: AbortSignal | undefined;
    const hanging: DeliveryProvider = {
      name: 'hanging',
      deliver: (_message, options) => {
        signal = options?.signal;
        return new Promise(() => undefined);
      },
    };
    // The provider never answers: an outcome at all is the timeout's, and its signal is aborted.
    const outcome = await deliverWithRetry(hanging, MESSAGE, { ...SETTINGS, timeoutMs: 100, retries: 0 });
    expect(outcome).toEqual({ ok: false, transient: true, reason: 'timeout after 100 ms', attempts: 1 });
    expect(signal?.aborted).toBe(true);
  });
});
