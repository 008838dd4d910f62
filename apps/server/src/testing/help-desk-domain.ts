import {
  type ChannelKey,
  CHANNEL_DELIVERY_MODE,
  ErrorNumber,
  POLICY_CATEGORY_SELF_SERVICE,
  usernameOrThrow,
} from '@dea/contract';
import { newId } from '../crypto/ids.js';
import type { ConsoleRole, Store } from '../store/store.js';
import { consoleCallerOf, identityOf } from './identity.js';
import type { SendRequest } from '../domain/channels/send-code.js';
import { DEFAULT_CODE_ALPHABET } from '../domain/codes/code-settings.js';
import { Verification } from '../domain/codes/verification.js';
import type { ConsoleCaller } from '../domain/console/console-auth.js';
import { DomainError } from '../domain/errors.js';
import { HelpDesk } from '../domain/help-desk/help-desk.js';

/** What the help desk's tests share: a help desk over a test's store, its callers and users. */

export const T0 = Date.UTC(2026, 11, 7, 9);
export const MINUTE = 60_000;
const KEY = Buffer.alloc(32, 5);
const DEFAULTS = {
  codeLength: 10,
  codeAlphabet: DEFAULT_CODE_ALPHABET,
  codeValidityMinutes: 60,
  codeUses: 1,
  maxUnusedCodes: 1,
};
export const DISPLAY = { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 3 };
export const BY_CHANNEL = { enableECode: true, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE };
export const NO_LOG = { warn: () => undefined };

/** A console caller past its passkey (or signed in at the organisation's provider). */
export function callerOf(
  role: ConsoleRole,
  scope: readonly string[] | null = null,
  signedInWith: ConsoleCaller['signedInWith'] = 'passkey',
): ConsoleCaller {
  return consoleCallerOf(role, T0, { scope, signedInWith });
}
export const actorOf = (caller: ConsoleCaller) => `console:${caller.account.username}`;

/**
 * The help desk over the test's store as the composition root builds it, a verification that
 * locks at the first failure, and a send that records what it was asked (the page's sending rules
 * are the channels module's); `addUser` makes a user in a group of their own with this policy.
 */
export function helpDeskOf(store: Store) {
  let at = T0;
  const now = () => at;
  const { people } = identityOf(store, now);
  const verification = new Verification(store, [KEY], DEFAULTS, { maxFailures: 1, lockMs: null });
  const sent: SendRequest[] = [];
  const desk = new HelpDesk(store, people, verification, DEFAULTS, KEY, now, (request) => {
    sent.push(request);
    return Promise.resolve({ to: 'i***@example.com' });
  });
  async function addUser(
    options: {
      policy?: Record<string, unknown>;
      channels?: Partial<Record<ChannelKey, string>>;
      fullName?: string;
      username?: string;
    } = {},
  ) {
    const id = newId(at);
    const username = usernameOrThrow(options.username ?? `user-${id.slice(-8).toLowerCase()}`);
    await store.users.create({
      id,
      username,
      passwordHash: 'hash',
      fullName: options.fullName ?? `Test ${username}`,
      locale: 'en',
      createdAt: at,
    });
    const groupId = newId(at);
    const group = `group-${username}`;
    await store.groups.create({ id: groupId, name: group, priority: 0 });
    await store.groups.setPolicy(groupId, POLICY_CATEGORY_SELF_SERVICE, options.policy ?? DISPLAY);
    await store.groups.addMember(groupId, id);
    for (const [key, address] of Object.entries(options.channels ?? {}))
      await store.channels.set({ id: newId(at), userId: id, key: key as ChannelKey, address, createdAt: at });
    const user = (await store.users.findById(id))!;
    return { user, groupId, group };
  }
  const lock = (userId: string) =>
    store.verifyFailures.record(userId, at, { lockAfter: 1, lockMs: null }).then(() => undefined);
  const startSession = (userId: string) =>
    store.sessions.create({ idHash: newId(at), userId, createdAt: at, lastSeenAt: at });
  const entries = (userId: string, event?: string) =>
    store.audit.list({ userId, limit: 100, ...(event !== undefined && { event }) });
  return {
    desk,
    sent,
    addUser,
    lock,
    startSession,
    entries,
    advance: (ms: number) => (at += ms),
    now,
  };
}

/** The refusal a promise ends in: its kind and error number. */
export async function refusalOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`not refused as a rule: ${String(error)}`);
  return { kind: error.kind, errorNumber: error.errorNumber, result: error.result };
}
export const FORBIDDEN = { kind: 'forbidden', errorNumber: ErrorNumber.notPermitted };
export const MISSING = { kind: 'missing', errorNumber: ErrorNumber.invalidRequest };
