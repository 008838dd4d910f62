import { POLICY_CATEGORY_HELP_DESK, type Username } from '@dea/contract';
import { newId } from '../../crypto/ids.js';
import type { ConsoleRole, Store, User, UserSource } from '../../store/store.js';
import { revokeCodesIfSwitchedOff } from '../codes/codes-switched-off.js';
import { helpDeskPolicyAllows } from '../policies/group-policies.js';
import { InvalidField, validFullName, validLocale, validTimeZone, validUsername } from './user-fields.js';
import type { DirectoryNames } from './user-directory.js';
import { type ChangeBy, requireOwnership, type UserPart } from './user-ownership.js';

/**
 * The user cannot be created or changed; nothing was written. `conflict`: the name or id is
 * another user's or another source's; `invalid`: the name is no user name; `unavailable`: the
 * directory that may own the name could not be asked.
 */
export class ProvisionError extends Error {
  constructor(
    message: string,
    readonly kind: 'conflict' | 'invalid' | 'unavailable' = 'conflict',
  ) {
    super(message);
    this.name = 'ProvisionError';
  }
}

/** The user to change is not (or no longer) in the store. */
export class NoSuchUser extends Error {
  constructor(readonly userId: string) {
    super(`no user with id ${userId}`);
    this.name = 'NoSuchUser';
  }
}

/** The canonical form of a source's user name, or a ProvisionError saying why it is none. */
export function provisionedName(username: string): Username {
  return checked(() => validUsername(username));
}

/** Runs a field check, a refused field becoming the ProvisionError every source answers with. */
export function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidField) throw new ProvisionError(error.message, 'invalid');
    throw error;
  }
}

/**
 * Refuses a new user of another source (SCIM, the import, the CLI) whose name the configured
 * directory knows: the name is the directory's, and only the directory's password may stand for
 * it. Nothing is created when the directory cannot be asked.
 */
export async function refuseDirectoryName(
  directoryNames: DirectoryNames | null,
  name: Username,
): Promise<void> {
  if (directoryNames === null) return;
  let known: boolean;
  try {
    known = await directoryNames.hasUser(name);
  } catch (error) {
    throw new ProvisionError(
      `the directory could not be asked whether it has a user named ${name} (${(error as Error).message}): nothing was created; check DEA_LDAP_URL and try again`,
      'unavailable',
    );
  }
  if (known)
    throw new ProvisionError(
      `the user name ${name} belongs to the directory (DEA_LDAP_URL): its user signs in with the directory's password, and no other source may create it`,
    );
}

/** A user without a password of their own: only their source can say who they are. */
export const NO_LOCAL_PASSWORD = '!';

export interface NewPerson {
  /** As the door got it: stored in its canonical form (RFC 8265). */
  username: string;
  fullName: string;
  /** Absent: en; null: none (the page's language rule applies). */
  locale?: string | null | undefined;
  /** An IANA time zone; null or absent: DEA_TIME_ZONE. */
  timeZone?: string | null | undefined;
  /** A hash of the user's own password; absent: none (NO_LOCAL_PASSWORD). */
  passwordHash?: string | undefined;
  externalId?: string | null | undefined;
  givenName?: string | null | undefined;
  familyName?: string | null | undefined;
  primaryEmail?: string | null | undefined;
  primaryPhone?: string | null | undefined;
  displayName?: string | null | undefined;
  formattedName?: string | null | undefined;
}

/**
 * The parts of a user SCIM round-trips (RFC 7643): the name's given and family parts, and the
 * channel keys of the e-mail address and phone number marked primary; displayName and
 * name.formatted as given (null: unassigned). They go with the full name: whoever owns it owns them.
 */
export interface PersonProfile {
  givenName?: string | null;
  familyName?: string | null;
  primaryEmail?: string | null;
  primaryPhone?: string | null;
  displayName?: string | null;
  formattedName?: string | null;
}

const PROFILE_PARTS = [
  'givenName',
  'familyName',
  'primaryEmail',
  'primaryPhone',
  'displayName',
  'formattedName',
] as const;

/** The fields of a user that `update` changes; each checked against its rule and its owner. */
export interface PersonFields extends PersonProfile {
  username?: string;
  fullName?: string;
  /** null: none (the page's language rule applies). */
  locale?: string | null;
  timeZone?: string | null;
  externalId?: string | null;
  /** A local user taken over by the import (`--adopt`). */
  source?: User['source'];
}

/** A part of the user, or the source's own id of them (which goes with their name). */
export type ChangedPart = UserPart | 'externalId' | (typeof PROFILE_PARTS)[number];

/** What an operation changed: the parts written (none: nothing was) and the sessions it ended. */
export interface PersonChange {
  user: User;
  changed: ChangedPart[];
  sessionsEnded: number;
}

/** The part whose owner owns this one: the source's id goes with the name, the profile with the full name. */
function ownerPartOf(part: Exclude<ChangedPart, 'source'>): UserPart {
  if (part === 'externalId') return 'username';
  return (PROFILE_PARTS as readonly string[]).includes(part) ? 'fullName' : (part as UserPart);
}

/**
 * The one way a user changes, from every door (the CLI, the console, SCIM, the directory, the
 * import): create, update fields, set the password, disable, enable, remove, end sessions. Each
 * operation checks the canonical name, the field rules and who owns the part (user-ownership.ts),
 * then writes and audits in one transaction of the store, and answers what changed.
 */
export class People {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    /**
     * The configured directory, which owns the names it has; null when none is configured. Never
     * optional: a caller that forgot it would let another source take a directory's name.
     */
    private readonly directoryNames: DirectoryNames | null,
  ) {}

  /**
   * The same use case over the caller's view of the store: inside its transaction (a batch's, a
   * provisioning's), or within its share of the connections (sign-in's, domain/bulkheads.ts).
   */
  within(store: Store): People {
    return new People(store, this.now, this.directoryNames);
  }

  /** Whether a new user of this door may have this name (the directory's names are its own). */
  async mayTakeName(door: UserSource, username: Username): Promise<void> {
    if (door !== 'ldap') await refuseDirectoryName(this.directoryNames, username);
  }

  /**
   * The fields of a new user of this door as they are stored, or the ProvisionError that refuses
   * them: the one check of a new user, one at a time (`create`) or many (people-batch.ts).
   */
  async checkedNew(
    door: UserSource,
    input: Pick<NewPerson, 'username' | 'fullName' | 'locale' | 'timeZone'>,
  ): Promise<{ username: Username; fullName: string; locale: string | null; timeZone: string | null }> {
    const username = provisionedName(input.username);
    const fullName = checked(() => validFullName(input.fullName));
    const locale = input.locale === null ? null : checked(() => validLocale(input.locale ?? 'en'));
    const zone = input.timeZone;
    const timeZone = zone === undefined || zone === null ? null : checked(() => validTimeZone(zone));
    await this.mayTakeName(door, username);
    return { username, fullName, locale, timeZone };
  }

  /** A new user of the door's source; disabled when `disabled`. Audited as `user.created`. */
  async create(by: ChangeBy, input: NewPerson): Promise<PersonChange> {
    const { username, fullName, locale, timeZone } = await this.checkedNew(by.door, input);
    const at = this.now();
    const id = newId(at);
    const user = await this.store.transaction(async (store) => {
      if ((await store.users.findByUsername(username)) !== undefined)
        throw new ProvisionError(`a user named "${username}" already exists`);
      await store.users.create({
        id,
        username,
        passwordHash: input.passwordHash ?? NO_LOCAL_PASSWORD,
        fullName,
        locale,
        timeZone,
        createdAt: at,
        source: by.door,
        externalId: input.externalId ?? null,
        givenName: input.givenName ?? null,
        familyName: input.familyName ?? null,
        primaryEmail: input.primaryEmail ?? null,
        primaryPhone: input.primaryPhone ?? null,
        displayName: input.displayName ?? null,
        formattedName: input.formattedName ?? null,
      });
      await this.audit(store, by, 'user.created', id, at, { username });
      return this.read(store, id);
    });
    return { user, changed: ['username', 'fullName', 'locale', 'timeZone'], sessionsEnded: 0 };
  }

  /**
   * Changes the fields that differ from the stored ones, each only by its owner. Audited as
   * `user.updated` with the fields changed (and `details`); nothing written when none differs.
   */
  async update(
    by: ChangeBy,
    userId: string,
    fields: PersonFields,
    details?: (changed: ChangedPart[]) => Record<string, unknown>,
  ): Promise<PersonChange> {
    const wanted = {
      ...(fields.username !== undefined && { username: provisionedName(fields.username) }),
      ...(fields.fullName !== undefined && {
        fullName: checked(() => validFullName(fields.fullName as string)),
      }),
      ...(fields.locale !== undefined && {
        locale: fields.locale === null ? null : checked(() => validLocale(fields.locale as string)),
      }),
      ...(fields.timeZone !== undefined && {
        timeZone: fields.timeZone === null ? null : checked(() => validTimeZone(fields.timeZone as string)),
      }),
      ...(fields.externalId !== undefined && { externalId: fields.externalId }),
      ...(fields.source !== undefined && { source: fields.source }),
      ...Object.fromEntries(
        PROFILE_PARTS.filter((part) => fields[part] !== undefined).map((part) => [part, fields[part]]),
      ),
    };
    if (wanted.username !== undefined) {
      const current = await this.store.users.findById(userId);
      if (current !== undefined && current.username !== wanted.username && current.source !== 'ldap')
        await this.mayTakeName(by.door, wanted.username);
    }
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      const changes = Object.fromEntries(
        Object.entries(wanted).filter(([key, value]) => user[key as keyof typeof wanted] !== value),
      ) as typeof wanted;
      const named = Object.keys(changes) as ChangedPart[];
      // A user taken over is the new source's from then on: the rest is checked as theirs.
      if (changes.source !== undefined) requireOwnership(user, 'source', by.door);
      const owned = { ...user, source: changes.source ?? user.source };
      // The source's own id goes with the user's identity: whoever owns the name owns it.
      for (const part of named) if (part !== 'source') requireOwnership(owned, ownerPartOf(part), by.door);
      if (named.length === 0) return { user, changed: [], sessionsEnded: 0 };
      await store.users.update(user.id, { ...changes, updatedAt: at });
      await this.audit(store, by, 'user.updated', user.id, at, details?.(named) ?? { fields: named });
      return { user: await this.read(store, user.id), changed: named, sessionsEnded: 0 };
    });
  }

  /**
   * The user's own password (a hash); whoever signed in with the old one is signed out, and every
   * registration session of theirs ends.
   */
  async setPassword(by: ChangeBy, userId: string, passwordHash: string): Promise<PersonChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'password', by.door);
      await store.users.update(user.id, { passwordHash, updatedAt: at });
      const sessionsEnded = await store.sessions.endAllOfUser(user.id, at);
      const registrationSessionsEnded = await store.registration.endAllOfUser(user.id, at);
      await this.audit(store, by, 'user.password_set', user.id, at, {
        sessionsEnded,
        registrationSessionsEnded,
      });
      return { user: await this.read(store, user.id), changed: ['password'], sessionsEnded };
    });
  }

  /**
   * No sign-in, no codes, every verification fails: every session ends and every unused code is
   * revoked (so that none works again if the user is enabled). Nothing when disabled already.
   */
  async disable(by: ChangeBy, userId: string): Promise<PersonChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'disabled', by.door);
      if (user.disabled) return { user, changed: [], sessionsEnded: 0 };
      await store.users.update(user.id, { disabled: true, updatedAt: at });
      const sessionsEnded = await store.sessions.endAllOfUser(user.id, at);
      const registrationSessionsEnded = await store.registration.endAllOfUser(user.id, at);
      await this.audit(store, by, 'user.disabled', user.id, at, { sessionsEnded, registrationSessionsEnded });
      await revokeCodesIfSwitchedOff(store, [user.id], { actor: by.actor, at, cause: 'user disabled' });
      return { user: { ...user, disabled: true, updatedAt: at }, changed: ['disabled'], sessionsEnded };
    });
  }

  /** A disabled user enabled again; nothing when enabled already. */
  async enable(by: ChangeBy, userId: string): Promise<PersonChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'disabled', by.door);
      if (!user.disabled) return { user, changed: [], sessionsEnded: 0 };
      await store.users.update(user.id, { disabled: false, updatedAt: at });
      await this.audit(store, by, 'user.enabled', user.id, at);
      return { user: { ...user, disabled: false, updatedAt: at }, changed: ['disabled'], sessionsEnded: 0 };
    });
  }

  /** The user with their channels, codes and sessions; the audit log keeps their entries. */
  async remove(by: ChangeBy, userId: string): Promise<PersonChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'removal', by.door);
      await store.users.remove(user.id);
      await this.audit(store, by, 'user.removed', user.id, at, { username: user.username });
      return { user, changed: ['removal'], sessionsEnded: 0 };
    });
  }

  /** Every session of the user ends (signed out everywhere), their registration sessions too. */
  async endSessions(by: ChangeBy, userId: string): Promise<PersonChange> {
    const at = this.now();
    return this.store.transaction(async (store) => {
      const user = await this.forChange(store, userId);
      requireOwnership(user, 'sessions', by.door);
      const sessionsEnded = await store.sessions.endAllOfUser(user.id, at);
      const registrationSessionsEnded = await store.registration.endAllOfUser(user.id, at);
      await this.audit(store, by, 'user.signed_out', user.id, at, {
        sessionsEnded,
        registrationSessionsEnded,
      });
      return { user, changed: sessionsEnded === 0 ? [] : ['sessions'], sessionsEnded };
    });
  }

  /**
   * A sign-in's stamp on the user: the time of this sign-in, the one before kept as their last.
   * One statement, no audit entry of its own (the sign-in's `signin.succeeded` says it), and no
   * part of the ownership table: a sign-in through any source stamps its user.
   */
  async recordSignIn(userId: string, at: number): Promise<void> {
    await this.store.users.recordSignIn(userId, at);
  }

  /**
   * The user's own password hash made again at the configured cost after they signed in with it:
   * the same password, so nothing is audited and no session ends. Written only while the stored
   * hash is still `previous` (a rehash never undoes a password change); answers whether it was.
   */
  rehashPassword(userId: string, previous: string, rehashed: string): Promise<boolean> {
    return this.store.users.replacePasswordHash(userId, previous, rehashed);
  }

  /** Whether the help desk may help this user: their "Help Desk" policy names the role (both without one). */
  async helpDeskMayHelp(role: ConsoleRole, userId: string): Promise<boolean> {
    const stored = await this.store.groups.findPolicyOfUser(userId, POLICY_CATEGORY_HELP_DESK);
    return helpDeskPolicyAllows(stored, role);
  }

  private async forChange(store: Store, userId: string): Promise<User> {
    const user = await store.users.findForChange(userId);
    if (user === undefined) throw new NoSuchUser(userId);
    return user;
  }

  private async read(store: Store, userId: string): Promise<User> {
    const user = await store.users.findById(userId);
    if (user === undefined) throw new NoSuchUser(userId);
    return user;
  }

  private audit(
    store: Store,
    by: ChangeBy,
    event:
      | 'user.created'
      | 'user.updated'
      | 'user.password_set'
      | 'user.disabled'
      | 'user.enabled'
      | 'user.removed'
      | 'user.signed_out',
    userId: string,
    at: number,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    return store.audit.append({ event, userId, actor: by.actor, details: { ...by.details, ...details } }, at);
  }
}
