import type { PolicyOptions } from '@dea/contract';
import { generateCode, normalizeCode } from '../../crypto/code-generator.js';
import { newId } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { Channel, Store } from '../../store/store.js';
import { codeStoreFull, notPermitted } from '../errors.js';

const MINUTE = 60_000;

export interface IssuedCode {
  id: string;
  /** The code in clear: handed to exactly one response or one delivery, never stored or logged. */
  code: string;
  expiresAt: number;
  /** The user's channels, read with the issue in the same round trip: whom the notice tells. */
  channels: Channel[];
}

export interface IssueRequest {
  userId: string;
  policy: PolicyOptions;
  /** The send type when the code goes to a channel; null when it is shown on screen. */
  channelType: string | null;
  clientAddress: string | null;
  now: number;
  /** Who asks, when not the user themself (a help-desk agent: console:<account>). */
  actor?: string;
  /** What the audit entry records besides (the agent's reason). */
  details?: Record<string, unknown>;
}

export function codeHash(key: Buffer, userId: string, code: string, alphabet: string): string {
  return keyedHash(key, userId, normalizeCode(code, alphabet));
}

/** Issues a code under the user's policy; error 148 when the user holds too many unused ones. */
export async function issueCode(store: Store, hashKey: Buffer, request: IssueRequest): Promise<IssuedCode> {
  const { policy, userId, now } = request;
  const code = generateCode(policy.codeLength, policy.codeAlphabet);
  const id = newId(now);
  const expiresAt = now + policy.codeValidityMinutes * MINUTE;
  const outcome = await store.codes.issue(
    {
      id,
      userId,
      codeHash: codeHash(hashKey, userId, code, policy.codeAlphabet),
      createdAt: now,
      expiresAt,
      uses: policy.codeUses,
      channelType: request.channelType,
    },
    policy.maxUnusedCodes,
    {
      event: 'code.issued',
      userId,
      actor: request.actor ?? userId,
      clientAddress: request.clientAddress,
      details: {
        ...request.details,
        codeId: id,
        channel: request.channelType ?? 'screen',
        expiresAt: new Date(expiresAt).toISOString(),
      },
    },
  );
  if (!outcome.issued) {
    await store.audit.append(
      {
        event: 'code.refused',
        userId,
        actor: request.actor ?? userId,
        clientAddress: request.clientAddress,
        details: { reason: outcome.reason, channel: request.channelType ?? 'screen' },
      },
      now,
    );
    if (outcome.reason !== 'store-full') throw notPermitted();
    // Say how many unused codes the user holds and when a slot frees up: the oldest unused code
    // expires (or is used) first.
    const active = await store.codes.listActive(userId, now);
    const soonest = Math.min(...active.map((held) => held.expiresAt));
    throw codeStoreFull(
      Number.isFinite(soonest) ? { unusedCodes: active.length, nextFreeAt: soonest, now } : undefined,
    );
  }
  return { id, code, expiresAt, channels: outcome.channels };
}

/**
 * Takes one of the user's own unused codes out of use (the page does it before it asks for the
 * code that replaces it). True when this call revoked it; audited once even when two calls race.
 */
export async function revokeOwnCode(
  store: Store,
  request: { userId: string; codeId: string; clientAddress: string | null; now: number },
): Promise<boolean> {
  const { userId, codeId, now } = request;
  const held = (await store.codes.listActive(userId, now)).some((code) => code.id === codeId);
  if (!held || !(await store.codes.invalidate(codeId, now))) return false;
  await store.audit.append(
    {
      event: 'code.revoked',
      userId,
      actor: userId,
      clientAddress: request.clientAddress,
      details: { codeId },
    },
    now,
  );
  return true;
}
