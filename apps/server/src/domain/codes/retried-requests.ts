import { createHmac } from 'node:crypto';
import type { KeyClaim, VerifyAnswerRepository } from '../../store/store.js';
import type { VerifyOutcome } from './verification.js';

/*
 * Answer the retry, not a second use. A client that got no answer (a lost UDP packet, a cut
 * connection, a timeout) sends its request again; verifying it again would use up a second use of
 * the code or answer "wrong code" for a code that was just accepted. The first answer is
 * remembered for a while and given to the retry instead. One rule (`answerOnce`) over two
 * memories: an instance's own (RADIUS: a client retransmits to the server it asked, RFC 5080
 * section 2.2.2) and the store's (HTTP with an Idempotency-Key: behind a load balancer the retry
 * may reach another instance).
 */

export type { KeyClaim };

/**
 * Where the answers are remembered, by key, each until its time runs out. `claim` is atomic: of any
 * number of simultaneous requests with one key, exactly one is `claimed`. `settle` keeps the
 * claimed request's answer, `release` forgets a claim whose work failed, `withdraw` forgets an
 * answer that no retry has been given (false when one has).
 */
export interface AnswerMemory<A> {
  claim(key: string, fingerprint: string, now: number, until: number): Promise<KeyClaim<A>>;
  settle(key: string, fingerprint: string, answer: A, until: number): Promise<void>;
  release(key: string, fingerprint: string): Promise<void>;
  withdraw(key: string, fingerprint: string): Promise<boolean>;
}

/** A request that may be a retry: its key, what it asks (the fingerprint), and for how long its answer holds. */
export interface RetryAsk {
  key: string;
  fingerprint: string;
  now: number;
  windowMs: number;
}

export type Once<A> =
  | { state: 'answered'; answer: A; repeated: boolean; unkept?: unknown }
  | { state: 'in-flight' }
  | { state: 'other-request' };

/**
 * The one rule: the first request with a key does `work` and its answer is kept until `windowMs`
 * after it came; a retry (same key, same fingerprint) gets that answer (`repeated`), one that comes
 * while the first is still worked on gets `in-flight`, and the key used for another request
 * `other-request`. Work that fails leaves nothing behind: its retry is worked anew. An answer the
 * memory could not keep (the store failed after the work was done) is still the answer
 * (`unkept` says why it was not kept; the key stays claimed until its time runs out).
 */
export async function answerOnce<A>(
  memory: AnswerMemory<A>,
  ask: RetryAsk,
  work: () => Promise<A>,
): Promise<Once<A>> {
  const until = ask.now + ask.windowMs;
  const claim = await memory.claim(ask.key, ask.fingerprint, ask.now, until);
  if (claim.state === 'answered') return { state: 'answered', answer: claim.answer, repeated: true };
  if (claim.state !== 'claimed') return claim;
  let answer: A;
  try {
    answer = await work();
  } catch (error) {
    await memory.release(ask.key, ask.fingerprint).catch(() => undefined);
    throw error;
  }
  try {
    await memory.settle(ask.key, ask.fingerprint, answer, until);
  } catch (unkept) {
    return { state: 'answered', answer, repeated: false, unkept };
  }
  return { state: 'answered', answer, repeated: false };
}

interface Held<A> {
  fingerprint: string;
  answer: A | undefined;
  repeated: boolean;
  expiresAt: number;
}

/**
 * An instance's own memory of answers, bounded in count and time: at most `max` keys, each for its
 * window; when full, the oldest key is forgotten first (a retry of it is then worked anew).
 */
export class MemoryAnswers<A> implements AnswerMemory<A> {
  private readonly held = new Map<string, Held<A>>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.held.size;
  }

  claim(key: string, fingerprint: string, now: number, until: number): Promise<KeyClaim<A>> {
    this.forgetExpired(now);
    let found = this.held.get(key);
    if (found !== undefined && found.expiresAt <= now) {
      this.held.delete(key);
      found = undefined;
    }
    if (found === undefined) {
      // Keys go in the order they came, each with the same window: the oldest is the first.
      while (this.held.size >= this.max) {
        const oldest = this.held.keys().next();
        if (oldest.done === true) break;
        this.held.delete(oldest.value);
      }
      this.held.set(key, { fingerprint, answer: undefined, repeated: false, expiresAt: until });
      return Promise.resolve({ state: 'claimed' });
    }
    if (found.fingerprint !== fingerprint) return Promise.resolve({ state: 'other-request' });
    if (found.answer === undefined) return Promise.resolve({ state: 'in-flight' });
    found.repeated = true;
    return Promise.resolve({ state: 'answered', answer: found.answer });
  }

  settle(key: string, fingerprint: string, answer: A, until: number): Promise<void> {
    const found = this.held.get(key);
    if (found !== undefined && found.fingerprint === fingerprint && found.answer === undefined) {
      found.answer = answer;
      found.expiresAt = until;
    }
    return Promise.resolve();
  }

  release(key: string, fingerprint: string): Promise<void> {
    const found = this.held.get(key);
    if (found !== undefined && found.fingerprint === fingerprint && found.answer === undefined)
      this.held.delete(key);
    return Promise.resolve();
  }

  withdraw(key: string, fingerprint: string): Promise<boolean> {
    const found = this.held.get(key);
    if (found === undefined || found.fingerprint !== fingerprint || found.repeated)
      return Promise.resolve(false);
    this.held.delete(key);
    return Promise.resolve(true);
  }

  private forgetExpired(now: number): void {
    for (const [key, entry] of this.held) {
      if (entry.expiresAt > now) break;
      this.held.delete(key);
    }
  }
}

/** An HTTP verification asked with an `Idempotency-Key`. */
export interface IdempotentAsk {
  /** The header's value, checked by `idempotencyKeyOf`. */
  idempotencyKey: string;
  /**
   * Whose key it is: `service-key:<id>`, or the door and the caller's address for a caller
   * allowed by its address. Two callers' keys never meet.
   */
  caller: string;
  /** The user named (and the realm, where the door has one): keys are per user too. */
  user: string;
  /** What the request asks, every field that decides its answer (the code too): only hashed. */
  request: Readonly<Record<string, string | undefined>>;
  now: number;
}

/** The answer of an HTTP verification, first or repeated, or why there is none. */
export type RetriedVerification =
  | {
      state: 'answered';
      /** The first request's whole outcome; a retry's holds only `valid`. */
      outcome: VerifyOutcome | { valid: boolean };
      repeated: boolean;
      /** Set when the answer could not be kept in the store (a retry is then refused as in flight). */
      unkept?: unknown;
      /**
       * Gives the use back when the answer did not get out (http/answer-or-give-back.ts), unless a
       * retry has already been given it: then the answer got out after all, and the use stays.
       */
      giveBack: (giveBackUse: () => Promise<void>) => Promise<void>;
    }
  | { state: 'in-flight' }
  | { state: 'other-request' };

/** The longest Idempotency-Key taken. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The key of an `Idempotency-Key` header: a Structured Fields string as the IETF draft has it
 * (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`), or the bare text many clients send; printable ASCII,
 * 1 to 255 characters. Undefined when there is no header; an Error naming the problem when the
 * header cannot be a key.
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined | Error {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) return new Error('Idempotency-Key must be sent once');
  const trimmed = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(trimmed);
  const key = quoted === null ? trimmed : (quoted[1] ?? '').replace(/\\(["\\])/g, '$1');
  if (key === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key))
    return new Error(
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (a UUID, say)`,
    );
  return key;
}

const answerText = (valid: boolean): string => (valid ? 'valid' : 'invalid');

/**
 * Verifications asked with an Idempotency-Key (the API's tempPass/verify, /validate/check): the
 * answer is kept in the store for `windowMs` (DEA_VERIFY_IDEMPOTENCY_SECONDS), under a keyed hash
 * of the caller, the user and the key, with a keyed hash of the request; never the code. A request
 * without the header is verified as it always was.
 */
export class RetriedVerifications {
  constructor(
    private readonly answers: VerifyAnswerRepository,
    /** HMAC key of what must be recognisable but never readable (the secret's `identifier`). */
    private readonly hashKey: Buffer,
    private readonly windowMs: number,
  ) {}

  async verify(
    ask: IdempotentAsk | undefined,
    verify: () => Promise<VerifyOutcome>,
  ): Promise<RetriedVerification> {
    if (ask === undefined) {
      const outcome = await verify();
      return { state: 'answered', outcome, repeated: false, giveBack: (giveBackUse) => giveBackUse() };
    }
    const key = this.hash(['verify-answer', ask.caller, ask.user, ask.idempotencyKey]);
    const fields = Object.keys(ask.request).sort();
    const fingerprint = this.hash(fields.flatMap((name) => [name, ask.request[name] ?? '\u0000']));
    let outcome: VerifyOutcome | undefined;
    const once = await answerOnce(
      this.answers,
      { key, fingerprint, now: ask.now, windowMs: this.windowMs },
      async () => {
        outcome = await verify();
        return answerText(outcome.valid);
      },
    );
    if (once.state !== 'answered') return once;
    return {
      state: 'answered',
      outcome: outcome ?? { valid: once.answer === answerText(true) },
      repeated: once.repeated,
      ...(once.unkept !== undefined && { unkept: once.unkept }),
      giveBack: async (giveBackUse) => {
        if (await this.answers.withdraw(key, fingerprint)) await giveBackUse();
      },
    };
  }

  private hash(parts: readonly string[]): string {
    const mac = createHmac('sha256', this.hashKey);
    for (const part of parts) mac.update(`${part.length}:${part}`);
    return mac.digest('base64url');
  }
}
