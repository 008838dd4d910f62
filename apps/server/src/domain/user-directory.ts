import type { Username } from '@dea/contract';
import type { User } from '../store/store.js';

/**
 * The organisation's directory as sign-in and provisioning see it: an interface the domain owns,
 * which the LDAP and Active Directory adapter (directory/directory-users.ts) implements, so that
 * sign-in depends on no adapter's code and another kind of directory is one more implementation.
 */

/** The directory could not be reached or refused the service account: nothing was decided. */
export class DirectoryUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DirectoryUnavailableError';
  }
}

export type DirectorySignInResult =
  | { kind: 'signed-in'; user: User }
  | { kind: 'wrong-password'; user: User | undefined }
  | { kind: 'not-in-directory' };

/** The directory as the owner of user names (DESIGN section 8: a name belongs to exactly one source). */
export interface DirectoryNames {
  /** Whether the directory has a user of that name; rejects when the directory cannot answer. */
  hasUser(name: Username): Promise<boolean>;
}

/** The directory as sign-in uses it. Every method rejects with DirectoryUnavailableError when it cannot answer. */
export interface UserDirectory extends DirectoryNames {
  /**
   * Checks the password of the user the directory finds for `name`, after `admitEntry` has heard
   * (and may refuse, by throwing) the entry found; the user is brought up to date on success.
   */
  signIn(
    name: Username,
    password: string,
    admitEntry: (externalId: string) => Promise<void>,
  ): Promise<DirectorySignInResult>;
  /** Costs what checking a real user's password costs, for a name no user has. */
  decoyCheck(): Promise<void>;
}
