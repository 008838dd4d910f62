import Type from 'typebox';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './constants.js';

/** A new password as a request's body field (the rule of passwords.ts). */
export const NewPassword = Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH });

/** The console's people screens: users administered by an administrator. */

export const AdminPersonParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) });
export type AdminPersonParams = Type.Static<typeof AdminPersonParams>;

export const AdminPeopleQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'A part of the user name or full name' })),
});
export type AdminPeopleQuery = Type.Static<typeof AdminPeopleQuery>;

export const AdminPersonSummary = Type.Object({
  id: Type.String(),
  username: Type.String(),
  fullName: Type.String(),
  /** local, ldap, scim or import: who owns the user's identity. */
  source: Type.String(),
  disabled: Type.Boolean(),
});
export type AdminPersonSummary = Type.Static<typeof AdminPersonSummary>;

export const AdminPeople = Type.Object({ users: Type.Array(AdminPersonSummary) });
export type AdminPeople = Type.Static<typeof AdminPeople>;

/** What an administrator may change of a user through the console; the rest is shown read-only with its source. */
export const AdminPersonEditable = Type.Object({
  fullName: Type.Boolean(),
  locale: Type.Boolean(),
  timeZone: Type.Boolean(),
  password: Type.Boolean(),
  disabled: Type.Boolean(),
  removal: Type.Boolean(),
  sessions: Type.Boolean(),
  /** Channels added, changed (each new address proven by a code first) and removed. */
  channels: Type.Boolean(),
});
export type AdminPersonEditable = Type.Static<typeof AdminPersonEditable>;

export const AdminPerson = Type.Object({
  id: Type.String(),
  username: Type.String(),
  fullName: Type.String(),
  locale: Type.Union([Type.String(), Type.Null()], {
    description: "null: none, the page's language rule applies",
  }),
  timeZone: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  disabled: Type.Boolean(),
  createdAt: Type.String(),
  lastLoginAt: Type.Union([Type.String(), Type.Null()]),
  editable: AdminPersonEditable,
  groups: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      /** Who decides the group's members: a group of another source's is shown read-only. */
      owner: Type.String(),
      member: Type.Boolean(),
    }),
  ),
  /** Masked, with the source that gave them (the user's); a local user's are changed through a proof. */
  channels: Type.Array(
    Type.Object({
      key: Type.String(),
      address: Type.String(),
      source: Type.String(),
      origin: Type.String({
        description: 'source (set by an operator door or the source) or owner (registered by its person)',
      }),
    }),
  ),
  /** Addresses waiting for the code sent to them, started in the console. */
  pendingChannels: Type.Array(
    Type.Object({
      key: Type.String(),
      to: Type.String({ description: 'The masked address' }),
      proofId: Type.String(),
      expiresAt: Type.String(),
    }),
  ),
});
export type AdminPerson = Type.Static<typeof AdminPerson>;

export const AdminPersonCreate = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  fullName: Type.String({ minLength: 1, maxLength: 256 }),
  locale: Type.Optional(Type.String({ maxLength: 35 })),
  timeZone: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
});
export type AdminPersonCreate = Type.Static<typeof AdminPersonCreate>;

export const AdminPersonUpdate = Type.Object({
  fullName: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  locale: Type.Optional(Type.String({ maxLength: 35 })),
  timeZone: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
});
export type AdminPersonUpdate = Type.Static<typeof AdminPersonUpdate>;

export const AdminPersonMembership = Type.Object({
  groupId: Type.String({ minLength: 1, maxLength: 100 }),
  member: Type.Boolean(),
});
export type AdminPersonMembership = Type.Static<typeof AdminPersonMembership>;

export const AdminPersonChanged = Type.Object({
  /** The parts written; none: nothing changed. */
  changed: Type.Array(Type.String()),
  sessionsEnded: Type.Integer(),
});
export type AdminPersonChanged = Type.Static<typeof AdminPersonChanged>;

/** A one-time link with which the user sets a new password in the login application. */
export const AdminPasswordLink = Type.Object({ url: Type.String(), expiresAt: Type.String() });
export type AdminPasswordLink = Type.Static<typeof AdminPasswordLink>;

/** The login application's form behind that link. */
export const PasswordLinkUse = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
});
export type PasswordLinkUse = Type.Static<typeof PasswordLinkUse>;

/** Console accounts as administrators see them. */
export const AdminConsoleAccount = Type.Object({
  id: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  role: Type.String(),
  scope: Type.Union([Type.Array(Type.String()), Type.Null()]),
  disabled: Type.Boolean(),
  /** local (password and passkey), provider (OpenID) or directory (DEA_CONSOLE_LDAP_ROLES): the last two take their role from groups. */
  source: Type.String(),
  lastSignInAt: Type.Union([Type.String(), Type.Null()]),
  passkeys: Type.Array(
    Type.Object({
      credentialId: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
      lastUsedAt: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type AdminConsoleAccount = Type.Static<typeof AdminConsoleAccount>;

export const AdminConsoleAccounts = Type.Object({ accounts: Type.Array(AdminConsoleAccount) });
export type AdminConsoleAccounts = Type.Static<typeof AdminConsoleAccounts>;

export const AdminConsoleAccountParams = Type.Object({
  accountId: Type.String({ minLength: 1, maxLength: 100 }),
});
export type AdminConsoleAccountParams = Type.Static<typeof AdminConsoleAccountParams>;

export const AdminConsoleRoleChange = Type.Object({
  role: Type.Union([Type.Literal('admin'), Type.Literal('helpdesk'), Type.Literal('auditor')]),
  /** Group names a help-desk or auditor account is limited to; null: not limited. */
  scope: Type.Union([
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 }),
    Type.Null(),
  ]),
});
export type AdminConsoleRoleChange = Type.Static<typeof AdminConsoleRoleChange>;

export const AdminPasskeyRename = Type.Object({
  credentialId: Type.String({ minLength: 1, maxLength: 1024 }),
  name: Type.String({ maxLength: 64 }),
});
export type AdminPasskeyRename = Type.Static<typeof AdminPasskeyRename>;

export const AdminPasskeyRemove = Type.Object({
  credentialId: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type AdminPasskeyRemove = Type.Static<typeof AdminPasskeyRemove>;

/** A new enrolment link for an account whose passkeys were replaced. */
export const AdminEnrolmentLink = Type.Object({
  url: Type.String(),
  expiresAt: Type.String(),
  removed: Type.Integer(),
});
export type AdminEnrolmentLink = Type.Static<typeof AdminEnrolmentLink>;

export const AdminConsoleAccountCreate = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  role: Type.Union([Type.Literal('admin'), Type.Literal('helpdesk'), Type.Literal('auditor')]),
  scope: Type.Union([
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 }),
    Type.Null(),
  ]),
  /** The account's password, handed to its person with the enrolment link. */
  password: NewPassword,
});
export type AdminConsoleAccountCreate = Type.Static<typeof AdminConsoleAccountCreate>;
