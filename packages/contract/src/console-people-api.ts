import Type from 'typebox';

/** The console's people screens (issue 31, part 4): users administered by an administrator. */

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
});
export type AdminPersonEditable = Type.Static<typeof AdminPersonEditable>;

export const AdminPerson = Type.Object({
  id: Type.String(),
  username: Type.String(),
  fullName: Type.String(),
  locale: Type.String(),
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
  /** Read-only here, masked, with the source that gave them (the user's). */
  channels: Type.Array(Type.Object({ key: Type.String(), address: Type.String(), source: Type.String() })),
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
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type PasswordLinkUse = Type.Static<typeof PasswordLinkUse>;

/** Where the login application's password link puts its token: after '#'. */
export const PASSWORD_LINK_FRAGMENT = 'reset=';
