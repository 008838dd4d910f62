import type { User, UserSource } from '../../store/store.js';

/**
 * The doors through which a user changes: the administrators (the CLI and the console), the
 * directory (its sync and sign-in), SCIM and the import file.
 */
export type UserDoor = 'operator' | 'directory' | 'scim' | 'import';

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

/** The source of the users each door creates. */
export const SOURCE_OF_DOOR: Readonly<Record<UserDoor, UserSource>> = {
  operator: 'local',
  directory: 'ldap',
  scim: 'scim',
  import: 'import',
};

/** The door of a source's own changes. */
export const DOOR_OF_SOURCE: Readonly<Record<UserSource, UserDoor>> = {
  local: 'operator',
  ldap: 'directory',
  scim: 'scim',
  import: 'import',
};

/**
 * Who may change what (ADR 0019): for each source of users, the doors that may change each part,
 * the owner first. A source's identity (name, full name) is its own; the administrators keep the
 * levers of an emergency on every user (disable, enable, remove, end sessions). A directory user's
 * password is the directory's and is set nowhere here; imported and SCIM users get theirs from an
 * operator (SCIM may push one too). A user's channels are their source's; a local user's are the
 * administrators' (the CLI, and the console through a proof of each new address, channel-proof.ts).
 * Only the import takes a local user over (`--adopt`).
 */
export const USER_OWNERSHIP: Readonly<Record<UserSource, Readonly<Record<UserPart, readonly UserDoor[]>>>> = {
  local: {
    username: ['operator'],
    fullName: ['operator'],
    locale: ['operator'],
    timeZone: ['operator'],
    password: ['operator'],
    disabled: ['operator'],
    removal: ['operator'],
    sessions: ['operator'],
    channels: ['operator'],
    source: ['import'],
  },
  ldap: {
    username: ['directory'],
    fullName: ['directory'],
    locale: ['directory', 'operator'],
    timeZone: ['directory', 'operator'],
    password: [],
    disabled: ['directory', 'operator'],
    removal: ['directory', 'operator'],
    sessions: ['operator', 'directory'],
    channels: ['directory'],
    source: [],
  },
  scim: {
    username: ['scim'],
    fullName: ['scim'],
    locale: ['scim'],
    timeZone: ['scim'],
    password: ['scim', 'operator'],
    disabled: ['scim', 'operator'],
    removal: ['scim', 'operator'],
    sessions: ['operator', 'scim'],
    channels: ['scim'],
    source: [],
  },
  import: {
    username: ['import'],
    fullName: ['import'],
    locale: ['import'],
    timeZone: ['import'],
    password: ['operator'],
    disabled: ['import', 'operator'],
    removal: ['import', 'operator'],
    sessions: ['operator', 'import'],
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
    readonly door: UserDoor,
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
export function mayChange(user: Pick<User, 'source'>, part: UserPart, door: UserDoor): boolean {
  return USER_OWNERSHIP[user.source][part].includes(door);
}

/** Refuses, naming the owner, a change of a part this door does not own. */
export function requireOwnership(
  user: Pick<User, 'source' | 'username'>,
  part: UserPart,
  door: UserDoor,
): void {
  if (!mayChange(user, part, door)) throw new OwnershipRefused(user.username, part, user.source, door);
}
