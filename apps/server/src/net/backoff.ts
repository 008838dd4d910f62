/** How retries wait: the first delay, the largest, the factor between two, and a share of jitter. */
export interface BackoffPolicy {
  firstMs: number;
  maxMs: number;
  /** 2 unless said: each delay doubles the one before. */
  factor?: number;
  /** 0 unless said; 0.2: each delay drawn between 80 % and 100 % of its value, so retries spread out. */
  jitter?: number;
}

/**
 * The one retry-with-backoff rule of the server (delivery, webhooks, the audit export): the delay
 * before retry number `attempt` (1 for the first retry).
 */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const factor = policy.factor ?? 2;
  const base = Math.min(policy.maxMs, policy.firstMs * factor ** Math.max(0, attempt - 1));
  const jitter = policy.jitter ?? 0;
  return base * (1 - jitter + jitter * random());
}

/** The retries of one thing that fails and recovers: the next delay, and back to the first after a success. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next retry; each call counts one failure. */
  next(): number {
    this.attempt += 1;
    return backoffDelay(this.policy, this.attempt, this.random);
  }

  /** After a success. */
  reset(): void {
    this.attempt = 0;
  }

  /** Failures since the last success. */
  get failures(): number {
    return this.attempt;
  }
}
