import type { User, UserSource } from '../../store/store.js';

/**
 * Who makes a change of people data (a user, their channels, a group, a membership): the door it
 * comes through, named as the source whose changes it makes, one vocabulary with the sources stored
 * on users and groups (ADR 0042): 'local' the administrators (the CLI and the console), 'ldap' the
 * directory (its sync and sign-in), 'scim' the identity provider, 'import' the import file; and the
 * actor its audit entry names. A door creates users and groups of its own source.
 */
export interface ChangeBy {
  door: UserSource;
  actor: string;
  /** Added to the change's audit entry (the source, the reason). */
  details?: Record<string, unknown>;
}

/** The parts of a user that change, each with an owner per source. */
export type UserPart =
  | 'username'
  | 'fullName'
  | 'locale'
  | 'timeZone'
  | 'password'
  | 'disabled'
  | 'removal'
  | 'sessions'
  | 'channels'
  | 'source';

/**
 * Who may change what (ADR 0019): for each source of users, the doors that may change each part,
 * the owner first ('local': the administrators). A source's identity (name, full name) is its own; the administrators keep the
 * levers of an emergency on every user (disable, enable, remove, end sessions). A directory user's
 * password is the directory's and is set nowhere here; imported and SCIM users get theirs from an
 * operator (SCIM may push one too). A user's channels are their source's; a local user's are the
 * administrators' (the CLI, and the console through a proof of each new address, channel-proof.ts).
 * Only the import takes a local user over (`--adopt`).
 */
export const USER_OWNERSHIP: Readonly<Record<UserSource, Readonly<Record<UserPart, readonly UserSource[]>>>> =
  {
    local: {
      username: ['local'],
      fullName: ['local'],
      locale: ['local'],
      timeZone: ['local'],
      password: ['local'],
      disabled: ['local'],
      removal: ['local'],
      sessions: ['local'],
      channels: ['local'],
      source: ['import'],
    },
    ldap: {
      username: ['ldap'],
      fullName: ['ldap'],
      locale: ['ldap', 'local'],
      timeZone: ['ldap', 'local'],
      password: [],
      disabled: ['ldap', 'local'],
      removal: ['ldap', 'local'],
      sessions: ['local', 'ldap'],
      channels: ['ldap'],
      source: [],
    },
    scim: {
      username: ['scim'],
      fullName: ['scim'],
      locale: ['scim'],
      timeZone: ['scim'],
      password: ['scim', 'local'],
      disabled: ['scim', 'local'],
      removal: ['scim', 'local'],
      sessions: ['local', 'scim'],
      channels: ['scim'],
      source: [],
    },
    import: {
      username: ['import'],
      fullName: ['import'],
      locale: ['import'],
      timeZone: ['import'],
      password: ['local'],
      disabled: ['import', 'local'],
      removal: ['import', 'local'],
      sessions: ['local', 'import'],
      channels: ['import'],
      source: [],
    },
  };

/** How a refusal names each source, and where its users change. */
const OWNER_OF_SOURCE: Readonly<Record<UserSource, string>> = {
  local: 'the administrators (dea user or the console)',
  ldap: 'the directory (DEA_LDAP_URL)',
  scim: 'the identity provider (SCIM)',
  import: 'the import file (dea user import)',
};

const PART_NAMES: Readonly<Record<UserPart, string>> = {
  username: 'user name',
  fullName: 'full name',
  locale: 'locale',
  timeZone: 'time zone',
  password: 'password',
  disabled: 'enabled or disabled state',
  removal: 'removal',
  sessions: 'sessions',
  channels: 'channel list',
  source: 'source',
};

/**
 * A change the user's owner keeps for itself, refused before anything is written. The message
 * names the owner: "alice's full name comes from the directory (DEA_LDAP_URL); change it there".
 * Each door answers it its own way: the CLI exit 1, SCIM 409 mutability, the console 409.
 */
export class OwnershipRefused extends Error {
  constructor(
    readonly username: string,
    readonly part: UserPart,
    /** The source whose users these are. */
    readonly owner: UserSource,
    readonly door: UserSource,
  ) {
    super(
      `${username}'s ${PART_NAMES[part]} ${
        part === 'password' && owner === 'ldap'
          ? `is the directory's (DEA_LDAP_URL): it is checked and changed there, never here`
          : `comes from ${OWNER_OF_SOURCE[owner]}; change it there`
      }`,
    );
    this.name = 'OwnershipRefused';
  }
}

/** Whether this door may change this part of the user. */
export function mayChange(user: Pick<User, 'source'>, part: UserPart, door: UserSource): boolean {
  return USER_OWNERSHIP[user.source][part].includes(door);
}

/** Refuses, naming the owner, a change of a part this door does not own. */
export function requireOwnership(
  user: Pick<User, 'source' | 'username'>,
  part: UserPart,
  door: UserSource,
): void {
  if (!mayChange(user, part, door)) throw new OwnershipRefused(user.username, part, user.source, door);
}
