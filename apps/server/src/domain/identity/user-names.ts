import { canonicalUsername } from '@dea/contract';
import type { ConsoleAccount, Store, User } from '../../store/store.js';
import type { UserWithPolicy } from '../../store/sql/users.js';
import type { ServiceKeyWithUser } from '../../store/sql/service-keys.js';

/**
 * The user a name names, however it is spelled: its canonical form (RFC 8265, ADR 0016) looked
 * up. A name the profile refuses names nobody. Every door that takes a user name (/validate/check,
 * RADIUS, the console's and the CLI's filters) finds users through this or, where the user comes
 * with something else in one read, through the functions below, by the same rule.
 */
export async function userNamed(store: Store, typed: string): Promise<User | undefined> {
  const name = canonicalUsername(typed);
  return name === undefined ? undefined : store.users.findByUsername(name);
}

/** The user a typed name names and their policy of `category`, read together. */
export async function userNamedWithPolicy(
  store: Store,
  typed: string,
  category: string,
): Promise<UserWithPolicy | undefined> {
  const name = canonicalUsername(typed);
  return name === undefined ? undefined : store.users.findByUsernameWithPolicy(name, category);
}

/**
 * The service key an integrator presents and the user its verification names (by id, or by a
 * typed name as userNamed finds it), read together: one round trip on PostgreSQL. A request that
 * names no user, both ways, or a name the profile refuses reads the key alone.
 */
export async function serviceKeyWithUserNamed(
  store: Store,
  keyId: string,
  named: { userId?: string | undefined; username?: string | undefined },
): Promise<ServiceKeyWithUser> {
  const { userId, username } = named;
  const name = username === undefined ? undefined : canonicalUsername(username);
  if (userId !== undefined && username === undefined)
    return store.serviceKeys.findWithUser(keyId, { id: userId });
  if (userId === undefined && name !== undefined)
    return store.serviceKeys.findWithUser(keyId, { username: name });
  return { serviceKey: await store.serviceKeys.findById(keyId), user: undefined };
}

/** The console account a name names, by the same rule as users. */
export async function consoleAccountNamed(store: Store, typed: string): Promise<ConsoleAccount | undefined> {
  const name = canonicalUsername(typed);
  return name === undefined ? undefined : store.console.findAccountByUsername(name);
}
