import { PersonChannels } from '../domain/identity/channels.js';
import { Groups } from '../domain/identity/groups.js';
import { People } from '../domain/identity/people.js';
import { UserProvisioning } from '../domain/identity/provision-user.js';
import type { DirectoryNames } from '../domain/identity/user-directory.js';
import { usernameOrThrow } from '@dea/contract';
import { newId } from '../crypto/ids.js';
import type { ConsoleCaller } from '../domain/console/console-auth.js';
import type { ConsoleRole, Store, UserSource } from '../store/store.js';

/**
 * The identity module's use cases over a test's store, wired as the composition root wires them
 * (composition.ts), for the tests that drive the domain without a server; no directory unless given.
 */
export function identityOf(store: Store, now: () => number, directoryNames: DirectoryNames | null = null) {
  const people = new People(store, now, directoryNames);
  const groups = new Groups(store, now);
  const channels = new PersonChannels(store, now);
  return {
    people,
    groups,
    channels,
    provisioning: new UserProvisioning(store, now, { people, groups, channels }),
  };
}

/** The stored password hash of a user `addStoredUser` made: a test can tell it from a new one. */
export const STORED_PASSWORD_HASH = 'hash-0';

/**
 * A user written straight to the store at `at`, as a source or the seeding would leave them: a
 * local user, or one of `source` with an external id of its name. Answers the user's id.
 */
export async function addStoredUser(
  store: Store,
  username: string,
  at: number,
  source: UserSource = 'local',
): Promise<string> {
  const id = newId(at);
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: STORED_PASSWORD_HASH,
    fullName: `Full ${username}`,
    locale: 'en',
    createdAt: at,
    source,
    externalId: source === 'local' ? null : `ext-${username}`,
  });
  return id;
}

/**
 * A console caller past its passkey at `at` (or signed in at the organisation's provider), as the
 * console's guard hands it to a use case; named `name`, else by its role and id.
 */
export function consoleCallerOf(
  role: ConsoleRole,
  at: number,
  options: {
    scope?: readonly string[] | null;
    name?: string;
    signedInWith?: ConsoleCaller['signedInWith'];
  } = {},
): ConsoleCaller {
  const id = newId(at);
  const name = options.name ?? `${role}-${id.slice(-6).toLowerCase()}`;
  return {
    account: {
      id,
      username: usernameOrThrow(name),
      displayName: name,
      role,
      passwordHash: 'hash',
      disabled: false,
      createdAt: at,
      scope: options.scope ?? null,
    },
    session: {
      idHash: `session-${id}`,
      accountId: id,
      xsrfHash: 'xsrf',
      challenge: null,
      createdAt: at,
      lastSeenAt: at,
      passkeyAt: at,
      endedAt: null,
    },
    sessionId: `session-${id}`,
    passkeyVerified: true,
    signedInWith: options.signedInWith ?? 'passkey',
  };
}
