import { canonicalUsername } from '@dea/contract';
import type { ConsoleAccount, Store, User } from '../store/store.js';
import type { UserWithPolicy } from '../store/sql/users-with-policy.js';

/**
 * The user a name names, however it is spelled: its canonical form (RFC 8265, ADR 0016) looked
 * up. A name the profile refuses names nobody. Every door that takes a user name (verification by
 * name, /validate/check, RADIUS, the console's and the CLI's filters) finds users through this.
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

/** The console account a name names, by the same rule as users. */
export async function consoleAccountNamed(store: Store, typed: string): Promise<ConsoleAccount | undefined> {
  const name = canonicalUsername(typed);
  return name === undefined ? undefined : store.console.findAccountByUsername(name);
}
