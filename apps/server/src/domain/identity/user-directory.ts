import type { DirectoryAccountProblem } from '@dea/contract';
import type { ChannelKey, Username } from '@dea/contract';
import type { User } from '../../store/store.js';

/**
 * The organisation's directory as sign-in and provisioning see it: interfaces the domain owns.
 * `UserSource` is a source of users itself (find by name, check a password, list everyone or what
 * changed since a point), implemented by the LDAP and Active Directory adapter
 * (directory/ldap-directory.ts); `UserDirectory` is what sign-in asks of the source once its users
 * are provisioned (directory/directory-users.ts). Sign-in depends on these and on
 * DirectoryUnavailableError only, so another kind of source is one more module and one line in
 * bootstrap.ts.
 */

/** The directory could not be reached or refused the service account: nothing was decided. */
export class DirectoryUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DirectoryUnavailableError';
  }
}

export { DIRECTORY_ACCOUNT_PROBLEMS, type DirectoryAccountProblem } from '@dea/contract';

/** What a bind as the user said of a password. */
export type PasswordCheck =
  | { kind: 'right' }
  | { kind: 'wrong' }
  | { kind: 'account-problem'; problem: DirectoryAccountProblem };

export type DirectorySignInResult =
  | { kind: 'signed-in'; user: User }
  | { kind: 'wrong-password'; user: User | undefined }
  | { kind: 'account-problem'; user: User | undefined; problem: DirectoryAccountProblem }
  /**
   * The password is right, but the name is that of a stored user of another entry: the entry was
   * replaced in the directory (deleted and made again, a re-hire's new objectGUID). The new entry
   * is a new person to the product and does not take over the stored user: refused until an
   * operator removes that user (docs/operator/directory.md).
   */
  | { kind: 'entry-replaced'; user: User; externalId: string }
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

/**
 * Where a source finds one of its users again, which `checkPassword` and `groupsOf` take back: an
 * LDAP directory's is the entry's DN. Opaque to the product, which never reads, builds or stores it
 * (the user's lasting id is `externalId`).
 */
export type SourceRef = string & { readonly __sourceRef: unique symbol };

/** A user as a source has it, in the product's terms. */
export interface SourceUser {
  /** Where the source finds the user again (opaque). */
  ref: SourceRef;
  /** The source's stable id of the entry (entryUUID, objectGUID): survives renames. */
  externalId: string;
  username: string;
  fullName: string;
  locale: string | undefined;
  timeZone: string | undefined;
  disabled: boolean;
  /** Every mapped channel key: its address, or null when the source holds none. */
  channels: Partial<Record<ChannelKey, string | null>>;
  /** Product groups the user is in, as the source maps them. */
  groups: string[];
}

/**
 * A source of users. Every method rejects with DirectoryUnavailableError when the source cannot
 * answer; none decides anything in the product (provisioning does).
 */
export interface UserSource {
  /** The user of that name, or undefined when the source has none; without `groups`, `groups: []`. */
  findUser(name: string, options?: { groups?: boolean }): Promise<SourceUser | undefined>;
  /** Whether the password is that user's. */
  checkPassword(ref: SourceRef, password: string): Promise<boolean>;
  /** The same check, with the reason when the source refuses the account itself. */
  passwordCheck(ref: SourceRef, password: string): Promise<PasswordCheck>;
  /** Costs what checking a real user's password costs, for a name the source does not have. */
  decoyCheck(): Promise<void>;
  /** The product groups of a user. */
  groupsOf(ref: SourceRef): Promise<string[]>;
  /**
   * Everyone, a page at a time; with `changedSince`, only the entries changed at or after that
   * point (a removed entry is seen only by a listing of everyone).
   */
  allUsers(changedSince?: Date): AsyncIterable<SourceUser[]>;
}
