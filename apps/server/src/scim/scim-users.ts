import { canonicalUsername, type ChannelKey, newPasswordProblem } from '@dea/contract';
import Value from 'typebox/value';
import { newId } from '../crypto/ids.js';
import { NoSuchUser } from '../domain/identity/people.js';
import type { ChangeBy } from '../domain/identity/user-ownership.js';
import { OwnershipRefused, requireOwnership, type UserPart } from '../domain/identity/user-ownership.js';
import {
  ProvisionError,
  type SourcedUser,
  type UserProvisioning,
} from '../domain/identity/provision-user.js';
import {
  InvalidField,
  validFullName,
  validLocale,
  validTimeZone,
  validAddress,
  validUsername,
} from '../domain/identity/user-fields.js';
import type { Store, User, UserFilterColumn } from '../store/store.js';
import { invalidValue, notFound, ScimError } from './scim-error.js';
import { type AttributeMap, rowFilterOf, rowOrderOf } from './scim-filter.js';
import { applyPatch } from './scim-patch.js';
import { inOneTransaction } from './scim-transaction.js';
import { requireVersion, versionOf } from './scim-versions.js';
import { SCIM, ScimUserInput, type ScimListQuery, type ScimPatch } from './scim-schemas.js';

export type Resource = Record<string, unknown>;

/**
 * The password a PUT (its `password`) or a PATCH sends (an operation on the path `password`, or
 * one without a path whose value has it, as Okta sends it), to be hashed before the change.
 */
function passwordSent(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { password, Operations } = body as { password?: unknown; Operations?: unknown };
  if (typeof password === 'string') return password;
  if (!Array.isArray(Operations)) return undefined;
  for (const operation of Operations as { path?: unknown; value?: unknown }[]) {
    const value =
      typeof operation.path === 'string'
        ? operation.path.toLowerCase() === 'password'
          ? operation.value
          : undefined
        : (operation.value as { password?: unknown } | undefined)?.password;
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** The version a resource's meta carries. */
export const versionOfResource = (resource: Resource): string =>
  String((resource.meta as { version: string }).version);

/** A password a change sends: its new hash, or the hash it was found to match. */
export interface PreparedPassword {
  password: string;
  hash?: string;
  kept?: string;
}

export interface PasswordHashing {
  hash(password: string): Promise<string> | undefined;
  matches(password: string, stored: string): Promise<boolean> | undefined;
}

/**
 * How SCIM's typed phone numbers and e-mail addresses map to the channel keys. Entra ID and Okta
 * send the mobile number as type "mobile" and the office number as "work"; "other" is the way to
 * reach personalMobile. X handles are not part of SCIM: twitter channels are left alone.
 */
export const SCIM_CHANNELS = {
  phoneNumbers: { mobile: 'mobile', work: 'telephone', home: 'personalTelephone', other: 'personalMobile' },
  emails: { work: 'email', home: 'personalEmail' },
} as const satisfies Record<string, Record<string, ChannelKey>>;

const MANAGED_KEYS: ChannelKey[] = [
  ...Object.values(SCIM_CHANNELS.phoneNumbers),
  ...Object.values(SCIM_CHANNELS.emails),
];

/** The store's id of a user whose client sent no externalId: made here, never shown as theirs. */
const OWN_EXTERNAL_ID = 'dea:';

/** A user name compared as stored: in its canonical form (RFC 8265) when it is one. */
function asUsername(value: string): string {
  return canonicalUsername(value) ?? value.toLowerCase();
}

const text = (column: UserFilterColumn, caseExact = false): AttributeMap<UserFilterColumn> => ({
  type: 'string',
  column,
  caseExact,
});

/** The attributes a filter of Users may name, and what the store compares for each. */
const USER_FILTER: Readonly<Record<string, AttributeMap<UserFilterColumn>>> = {
  id: text('id', true),
  username: {
    type: 'string',
    column: 'username',
    caseExact: false,
    normalise: (value, op) => (op === 'eq' || op === 'ne' ? asUsername(value) : value),
  },
  externalid: {
    type: 'string',
    column: 'external_id',
    caseExact: true,
    // The id made here for a user whose client sent none is not the client's.
    also: {
      kind: 'not',
      filter: { kind: 'compare', column: 'external_id', op: 'sw', value: OWN_EXTERNAL_ID },
    },
  },
  displayname: text('display_name'),
  'name.formatted': text('formatted_name'),
  'name.givenname': text('given_name'),
  'name.familyname': text('family_name'),
  preferredlanguage: {
    type: 'string',
    column: 'locale',
    caseExact: false,
    normalise: (value) => value.replace('-', '_'),
  },
  locale: {
    type: 'string',
    column: 'locale',
    caseExact: false,
    normalise: (value) => value.replace('-', '_'),
  },
  timezone: text('time_zone', true),
  active: { type: 'negatedBoolean', column: 'disabled' },
  'meta.created': { type: 'dateTime', column: 'created_at' },
  'meta.lastmodified': { type: 'dateTime', column: 'last_modified' },
};

const iso = (at: number): string => new Date(at).toISOString();

const byScim = (actor: string): ChangeBy => ({ door: 'scim', actor, details: { source: 'scim' } });

/**
 * A change of the identity module, with its refusals as SCIM answers them: a part another source
 * owns is 400 mutability (naming the owner), a user gone meanwhile 404.
 */
async function scimChange<T>(id: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof OwnershipRefused) throw new ScimError(400, error.message, 'mutability');
    if (error instanceof NoSuchUser) throw notFound(`User ${id}`);
    throw error;
  }
}

/**
 * A preferredLanguage (RFC 7643: a language tag, `pt-BR`) as the product keeps it (`pt_BR`); a
 * refusal quotes the tag as the client sent it.
 */
function languageTag(tag: string): string {
  try {
    return validLocale(tag.replace('-', '_'), 'preferredLanguage');
  } catch (error) {
    if (error instanceof InvalidField)
      throw invalidValue(`preferredLanguage "${tag}" is not a language code such as en or pt-BR`);
    throw error;
  }
}

/** What a check of the user's fields refused becomes SCIM's invalidValue. */
function field<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidField) throw invalidValue(error.message);
    throw error;
  }
}

/**
 * RFC 7643 section 4.1.2: a phone number SHOULD be a tel URI (RFC 3966), `tel:+1-201-555-0123`;
 * its global number is the number, checked as any other. A parameter (`;ext=`, `;isub=`,
 * `;phone-context=`) is no part of a number a code can be sent to: refused, naming it.
 */
function numberOfTelUri(value: string): string {
  const uri = /^tel:([^;]*)(;.*)?$/i.exec(value);
  if (uri === null) return value;
  if (uri[2] !== undefined)
    throw invalidValue(
      `the phone number "${value}" has parameters (${uri[2]}): send the number alone, such as tel:+49-170-5550112`,
    );
  return uri[1] ?? '';
}

interface MultiValue {
  value?: string | undefined;
  type?: string | undefined;
  primary?: boolean | undefined;
}

/**
 * The channels of a SCIM user: every managed key, with its address or null; and the key of the
 * e-mail address and of the phone number marked primary (RFC 7643 section 2.4: at most one of
 * each; of several marked, the first kept).
 */
function channelsOf(input: ScimUserInput): {
  channels: Partial<Record<ChannelKey, string | null>>;
  primaryEmail: ChannelKey | null;
  primaryPhone: ChannelKey | null;
} {
  const channels: Partial<Record<ChannelKey, string | null>> = Object.fromEntries(
    MANAGED_KEYS.map((key) => [key, null]),
  );
  const take = (
    values: readonly MultiValue[] | undefined,
    byType: Record<string, ChannelKey>,
    untyped: ChannelKey,
    numberOf: (value: string) => string = (value) => value,
  ): ChannelKey | null => {
    let primary: ChannelKey | null = null;
    // The primary value first, so it wins a type both have.
    for (const entry of [...(values ?? [])].sort(
      (a, b) => Number(b.primary === true) - Number(a.primary === true),
    )) {
      const sent = entry.value?.trim();
      if (sent === undefined || sent === '') continue;
      const value = numberOf(sent);
      const type = entry.type?.toLowerCase();
      const key = type === undefined ? untyped : byType[type];
      if (key === undefined || channels[key] !== null) continue;
      channels[key] = field(() => validAddress(key, value));
      if (entry.primary === true && primary === null) primary = key;
    }
    return primary;
  };
  const primaryPhone = take(input.phoneNumbers, SCIM_CHANNELS.phoneNumbers, 'mobile', numberOfTelUri);
  const primaryEmail = take(input.emails, SCIM_CHANNELS.emails, 'email');
  return { channels, primaryEmail, primaryPhone };
}

const isOwnExternalId = (externalId: string | null): boolean =>
  externalId === null || externalId.startsWith(OWN_EXTERNAL_ID);

/**
 * SCIM's Users and the product's users of source `scim`: each write goes through the one
 * provisioning rule (audited with the service key as actor); users of other sources are neither
 * shown nor changed here.
 */
export class ScimUsers {
  constructor(
    private readonly store: Store,
    /** The one provisioning rule (identity/provision-user.ts) over this store. */
    private readonly provisioning: UserProvisioning,
    /** Password hashing in its turn among all hashes; undefined when too many wait already. */
    private readonly passwords: PasswordHashing,
    private readonly now: () => number,
  ) {}

  /**
   * One request's change of the user in one transaction of the store: its row is taken first
   * (another change of the user waits for this one, on any instance) and, with `ifMatch`, its
   * version checked there (RFC 7644 section 3.14), so that of two writers holding the same
   * version only the first changes it; the other is answered 412. `work` is given these users
   * over that transaction: what it writes and reads is part of it.
   */
  async change<T>(
    id: string,
    ifMatch: string | undefined,
    location: string,
    work: (users: ScimUsers) => Promise<T>,
  ): Promise<T> {
    return inOneTransaction(this.store, async (store) => {
      const users = new ScimUsers(store, this.provisioning.within(store), this.passwords, this.now);
      const current = await store.users.findForChange(id);
      if (ifMatch !== undefined) {
        // As a read: another source's user is no SCIM resource to have a version.
        if (current?.source !== 'scim') throw notFound(`User ${id}`);
        requireVersion(ifMatch, versionOfResource(await users.resource(current, location)));
      }
      return work(users);
    });
  }

  /**
   * A password a PUT or PATCH sends, hashed (or found to be the user's) before the transaction
   * of the change: hashing takes a while, and the transaction holds the user's row (on the
   * embedded store, the store) meanwhile.
   */
  async preparePassword(id: string, body: unknown): Promise<PreparedPassword | undefined> {
    const password = passwordSent(body);
    if (password === undefined) return undefined;
    const current = await this.store.users.findById(id);
    if (current?.source !== 'scim') return undefined;
    const hash = await this.passwordHashOf({ password } as ScimUserInput, current);
    return hash === undefined ? { password, kept: current.passwordHash } : { password, hash };
  }

  async get(id: string): Promise<User> {
    const user = await this.store.users.findById(id);
    if (user?.source !== 'scim') throw notFound(`User ${id}`);
    return user;
  }

  /**
   * The user a write names: SCIM's own, or a refusal naming the owner of another source's user
   * (whose parts SCIM owns none of: user-ownership.ts).
   */
  private async writable(id: string, part: UserPart): Promise<User> {
    const user = await this.store.users.findById(id);
    if (user === undefined) throw notFound(`User ${id}`);
    await scimChange(id, async () => requireOwnership(user, part, 'scim'));
    return user;
  }

  /** The SCIM users, or those the filter selects, in the order asked for: evaluated by the store. */
  async list(query: Pick<ScimListQuery, 'filter' | 'sortBy' | 'sortOrder'>): Promise<User[]> {
    const order = rowOrderOf(query.sortBy, query.sortOrder, USER_FILTER);
    if (query.filter === undefined && order === undefined) return this.store.users.listOfSource('scim');
    return this.store.users.listOfSourceWhere(
      'scim',
      query.filter === undefined ? { kind: 'and', filters: [] } : rowFilterOf(query.filter, USER_FILTER),
      order,
    );
  }

  async create(body: unknown, actor: string): Promise<User> {
    const input = this.checked(body);
    const username = field(() => validUsername(input.userName));
    if (await this.store.users.findByUsername(username))
      throw new ScimError(409, `the userName ${username} is taken`, 'uniqueness');
    const externalId = input.externalId ?? `${OWN_EXTERNAL_ID}${newId(this.now())}`;
    const passwordHash = await this.passwordHashOf(input);
    const user = await this.provision(input, externalId, actor, { mustCreate: true });
    await this.setPassword(user, passwordHash, actor);
    return user;
  }

  /**
   * PUT, and the result of a PATCH. displayName and name are what the body has (left out:
   * unassigned). With `omittedClears` (a PATCH, whose result is the whole resource) an attribute
   * the resource no longer has is unassigned too: externalId, preferredLanguage (the user has no
   * language: the page's language rule applies), timezone; `active` left out never changes the
   * user's state.
   */
  async replace(
    id: string,
    body: unknown,
    actor: string,
    omittedClears = false,
    prepared?: PreparedPassword,
  ): Promise<User> {
    const current = await this.writable(id, 'username');
    const input = this.checked(body);
    const sent = input.externalId;
    const externalId =
      typeof sent === 'string'
        ? sent
        : (sent === null || omittedClears) && !isOwnExternalId(current.externalId)
          ? `${OWN_EXTERNAL_ID}${newId(this.now())}`
          : current.externalId;
    const newExternalId = externalId !== null && externalId !== current.externalId ? externalId : undefined;
    if (newExternalId !== undefined && (await this.store.users.findByExternalId('scim', newExternalId)))
      throw new ScimError(409, `the externalId ${newExternalId} is another user's`, 'uniqueness');
    const passwordHash = await this.passwordHashOf(input, current, prepared);
    const user = await this.provision(input, current.externalId ?? '', actor, { omittedClears });
    if (newExternalId !== undefined)
      await scimChange(id, () =>
        this.provisioning.people.update(byScim(actor), user.id, { externalId: newExternalId }),
      );
    await this.setPassword(user, passwordHash, actor);
    return this.get(id);
  }

  /** The operations applied to the user as SCIM shows it, stored as a replacement. */
  async patch(
    id: string,
    patch: ScimPatch,
    actor: string,
    location: string,
    prepared?: PreparedPassword,
  ): Promise<User> {
    const resource = await this.resource(await this.writable(id, 'username'), location);
    return this.replace(id, applyPatch(resource, patch), actor, true, prepared);
  }

  async remove(id: string, actor: string): Promise<void> {
    const user = await this.writable(id, 'removal');
    await scimChange(id, () => this.provisioning.people.remove(byScim(actor), user.id));
  }

  /** The User resource of RFC 7643 section 4.1. */
  async resource(user: User, location: string): Promise<Resource> {
    const channels = new Map(
      (await this.store.channels.listOfUser(user.id)).map((channel) => [channel.key, channel.address]),
    );
    const typed = (byType: Record<string, ChannelKey>, primary: string | null) =>
      Object.entries(byType).flatMap(([type, key]) => {
        const value = channels.get(key);
        return value === undefined ? [] : [{ value, type, primary: key === primary }];
      });
    const name = {
      ...(user.formattedName !== null && { formatted: user.formattedName }),
      ...(user.givenName !== null && { givenName: user.givenName }),
      ...(user.familyName !== null && { familyName: user.familyName }),
    };
    const groups = await this.store.groups.listOfUser(user.id);
    const resource: Resource = {
      schemas: [SCIM.user],
      id: user.id,
      ...(user.externalId !== null &&
        !user.externalId.startsWith(OWN_EXTERNAL_ID) && { externalId: user.externalId }),
      userName: user.username,
      // An attribute the client left unassigned is not answered (RFC 7643 section 2.5).
      ...(user.displayName !== null && { displayName: user.displayName }),
      ...(Object.keys(name).length > 0 && { name }),
      active: !user.disabled,
      ...(user.locale !== null && { preferredLanguage: user.locale.replace('_', '-') }),
      ...(user.timeZone !== null && { timezone: user.timeZone }),
      emails: typed(SCIM_CHANNELS.emails, user.primaryEmail),
      phoneNumbers: typed(SCIM_CHANNELS.phoneNumbers, user.primaryPhone),
      // Only SCIM's own groups: an operator's group is not a resource SCIM can read.
      groups: groups
        .filter((group) => group.source === 'scim')
        .map((group) => ({
          value: group.id,
          $ref: `${location.slice(0, location.lastIndexOf('/Users/'))}/Groups/${group.id}`,
          display: group.name,
          type: 'direct',
        })),
    };
    return {
      ...resource,
      meta: {
        resourceType: 'User',
        created: iso(user.createdAt),
        lastModified: iso(user.updatedAt ?? user.createdAt),
        location,
        version: versionOf(resource),
      },
    };
  }

  private checked(body: unknown): ScimUserInput {
    if (!Value.Check(ScimUserInput, body)) {
      const [first] = Value.Errors(ScimUserInput, body);
      throw new ScimError(
        400,
        `the User is not valid: ${first === undefined ? 'wrong shape' : `${first.instancePath || '/'} ${first.message}`}`,
        'invalidValue',
      );
    }
    if (!body.schemas.includes(SCIM.user)) throw invalidValue(`a User names the schema ${SCIM.user}`);
    return body;
  }

  private async provision(
    input: ScimUserInput,
    externalId: string,
    actor: string,
    options: { mustCreate?: boolean; omittedClears?: boolean },
  ): Promise<User> {
    const name = input.name;
    const part = (value: string | null | undefined) =>
      value === undefined || value === null || value.trim() === '' ? null : value;
    const givenName = part(name?.givenName);
    const familyName = part(name?.familyName);
    // displayName and name.formatted kept as given (a blank one is none), checked as a full name.
    const sentName = (value: string | null | undefined, label: string) => {
      const sent = part(value);
      return sent === null ? null : field(() => validFullName(sent, label));
    };
    const displayName = sentName(input.displayName, 'displayName');
    const formattedName = sentName(name?.formatted, 'name.formatted');
    const given = [givenName, familyName].filter((each) => each !== null).join(' ');
    const fullName = displayName ?? formattedName ?? (given === '' ? input.userName : given);
    // Left out of a new user or of a PATCH's result: the user has no language.
    const unassigned = options.omittedClears === true || options.mustCreate === true;
    const sentNull = input.preferredLanguage === null || input.locale === null;
    const language = input.preferredLanguage ?? input.locale ?? (sentNull || unassigned ? null : undefined);
    const clears = options.omittedClears === true;
    const { channels, primaryEmail, primaryPhone } = channelsOf(input);
    const sourced: SourcedUser = {
      source: 'scim',
      externalId,
      username: field(() => validUsername(input.userName)),
      fullName: field(() => validFullName(fullName, 'displayName')),
      locale: language === undefined || language === null ? language : languageTag(language),
      timeZone:
        input.timezone === undefined || input.timezone === null
          ? input.timezone === null || clears
            ? null
            : undefined
          : field(() => validTimeZone(input.timezone as string, 'timezone')),
      // RFC 7643 `active` left out (or removed by a PATCH) leaves the user's state as it is.
      disabled: input.active === undefined ? undefined : !input.active,
      profile: { givenName, familyName, displayName, formattedName, primaryEmail, primaryPhone },
      channels,
      groups: { managed: [], memberOf: [] },
    };
    try {
      // Every field was checked above: provisioning has nothing left to warn about.
      return (await scimChange(externalId, () => this.provisioning.provision(sourced, actor, options))).user;
    } catch (error) {
      if (error instanceof ProvisionError) {
        if (error.kind === 'unavailable') throw new ScimError(503, error.message);
        if (error.kind === 'invalid') throw new ScimError(400, error.message, 'invalidValue');
        throw new ScimError(409, error.message, 'uniqueness');
      }
      throw error;
    }
  }

  /**
   * Okta's password push: hashed before anything is written, so a refusal changes nothing.
   * Undefined when there is none, or it is the one the user has (Okta sends it with every
   * update; signing the user out for it would be wrong).
   */
  private async passwordHashOf(
    input: ScimUserInput,
    current?: User,
    prepared?: PreparedPassword,
  ): Promise<string | undefined> {
    const { password } = input;
    if (password === undefined) return undefined;
    if (prepared?.password === password) {
      if (prepared.hash !== undefined) return prepared.hash;
      if (prepared.kept === current?.passwordHash) return undefined;
    }
    const problem = newPasswordProblem(password);
    if (problem !== undefined) throw invalidValue(problem);
    const busy = () => new ScimError(503, 'too many passwords are being hashed; try again shortly');
    if (current !== undefined) {
      const same = this.passwords.matches(password, current.passwordHash);
      if (same === undefined) throw busy();
      if (await same) return undefined;
    }
    const hashing = this.passwords.hash(password);
    if (hashing === undefined) throw busy();
    return hashing;
  }

  /** The user's own password for signing in to the page; whoever signed in before is signed out. */
  private async setPassword(user: User, passwordHash: string | undefined, actor: string): Promise<void> {
    if (passwordHash === undefined) return;
    await scimChange(user.id, () =>
      this.provisioning.people.setPassword(byScim(actor), user.id, passwordHash),
    );
  }
}
