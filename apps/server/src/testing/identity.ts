import { PersonChannels } from '../domain/identity/channels.js';
import { Groups } from '../domain/identity/groups.js';
import { People } from '../domain/identity/people.js';
import { UserProvisioning } from '../domain/identity/provision-user.js';
import type { DirectoryNames } from '../domain/identity/user-directory.js';
import type { Store } from '../store/store.js';

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
