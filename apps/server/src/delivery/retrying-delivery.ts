import { isNativeError } from 'node:util/types';
import { backoffDelay } from '../net/backoff.js';
import type { AttemptSettings } from './delivery-config.js';
import type { DeliveryProvider, DeliveryResult, OutgoingMessage } from './delivery.js';

export type SendOutcome = DeliveryResult & { attempts: number };

export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** 0..1, for the jitter of the backoff. */
  random(): number;
}

const realClock: RetryClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** An attempt needs at least this long to be worth starting. */
const MIN_ATTEMPT_MS = 50;

/** Thrown errors are unknown failures: retried, and named by their code only (a message may hold data). */
function thrown(error: unknown): DeliveryResult & { ok: false } {
  const code = (error as { code?: unknown } | null)?.code;
  const name = typeof code === 'string' ? code : isNativeError(error) ? error.name : 'unknown';
  return { ok: false, transient: true, reason: `provider error ${name}` };
}

async function attempt(
  provider: DeliveryProvider,
  message: OutgoingMessage,
  timeoutMs: number,
): Promise<DeliveryResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The race bounds the attempt even when a provider does not honour the signal; the signal
  // tells a provider that does to let go of its connection.
  const timedOut = new Promise<DeliveryResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ok: false, transient: true, reason: `timeout after ${timeoutMs} ms` });
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      provider.deliver(message, { signal: controller.signal, timeoutMs }).catch(thrown),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Delivers one message: each attempt bounded by the timeout, transient failures retried with
 * exponential backoff and jitter, permanent ones not, and all of it within the deadline. Every
 * attempt carries the same message, idempotency key included.
 */
export async function deliverWithRetry(
  provider: DeliveryProvider,
  message: OutgoingMessage,
  settings: AttemptSettings,
  clock: RetryClock = realClock,
): Promise<SendOutcome> {
  const started = clock.now();
  let attempts = 0;
  for (;;) {
    const remaining = settings.deadlineMs - (clock.now() - started);
    attempts += 1;
    const result = await attempt(
      provider,
      message,
      Math.max(MIN_ATTEMPT_MS, Math.min(settings.timeoutMs, remaining)),
    );
    if (result.ok || !result.transient || attempts > settings.retries) return { ...result, attempts };
    const delay = backoffDelay(
      { firstMs: settings.backoffMs, maxMs: Number.POSITIVE_INFINITY, jitter: 0.5 },
      attempts,
      () => clock.random(),
    );
    if (clock.now() - started + delay + MIN_ATTEMPT_MS > settings.deadlineMs) return { ...result, attempts };
    await clock.sleep(delay);
  }
}
