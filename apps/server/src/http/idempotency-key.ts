import type { FastifyReply, FastifyRequest } from 'fastify';
import { idempotencyKeyOf } from '../domain/codes/retried-requests.js';
import type { VerifyOutcome } from '../domain/codes/verification.js';
import type { Services } from '../services.js';
import { answerOrGiveBack } from './answer-or-give-back.js';

/** The header a client sends the same on every attempt of one request (IETF draft httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** What an HTTP door answers: valid or not, or a refusal with its HTTP status and why. */
export type VerifiedOnce = { valid: boolean } | { refused: { status: 400 | 409 | 422; message: string } };

/**
 * A door's verification (tempPass/verify, /validate/check) with the rule of retries around it
 * (domain/codes/retried-requests.ts): with an Idempotency-Key, a retry within DEA_VERIFY_IDEMPOTENCY_SECONDS
 * gets the first answer; a retry while the first is still answered is refused with 409 and the key
 * used for another request with 422, as the draft says; a header that cannot be a key is a 400.
 * A valid first answer that does not get out gives its use back (unless a retry got it).
 */
export async function verifiedOnce(
  request: FastifyRequest,
  reply: FastifyReply,
  services: Services,
  ask: {
    /** Whose key it is: `service-key:<id>`, or the door and the caller's address. */
    caller: string;
    /** The user as named in the request (and the realm, where the door has one). */
    user: string;
    /** Every field of the request that decides its answer. */
    fields: Readonly<Record<string, string | undefined>>;
    userId: string | undefined;
    attempt: { actor: string; clientAddress: string | null; now: number };
  },
  verify: () => Promise<VerifyOutcome>,
): Promise<VerifiedOnce> {
  const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_KEY_HEADER]);
  if (key instanceof Error) return { refused: { status: 400, message: key.message } };
  const answered = await services.retriedVerifications.verify(
    key === undefined
      ? undefined
      : {
          idempotencyKey: key,
          caller: ask.caller,
          user: ask.user,
          request: ask.fields,
          now: ask.attempt.now,
        },
    verify,
  );
  if (answered.state === 'in-flight')
    return {
      refused: {
        status: 409,
        message:
          'a request with this Idempotency-Key is still being answered; send it again once that one is answered',
      },
    };
  if (answered.state === 'other-request')
    return {
      refused: {
        status: 422,
        message:
          'this Idempotency-Key was sent with another request (another code); a new request needs a new key',
      },
    };
  if (answered.unkept !== undefined)
    request.log.warn(
      { err: answered.unkept },
      'the answer of a verification with an Idempotency-Key could not be kept in the store; its retry is refused with 409 until DEA_VERIFY_IDEMPOTENCY_SECONDS have passed',
    );
  const { outcome } = answered;
  const { userId } = ask;
  if (!answered.repeated && outcome.valid && 'codeId' in outcome && userId !== undefined)
    answerOrGiveBack(request, reply, () =>
      answered.giveBack(() =>
        services.verification.giveBackUse({ userId, codeId: outcome.codeId }, ask.attempt),
      ),
    );
  return { valid: outcome.valid };
}
