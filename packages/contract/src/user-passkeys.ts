import Type from 'typebox';
import { PasskeyAuthenticationResponse, PasskeyRegistrationResponse } from './console-api.js';

// A person's own passkeys, on the channels page under /dea/api/: one opens the
// registration of channels with the page's password session; they are listed, added, renamed
// and removed inside a registration session.
const strict = { additionalProperties: false } as const;
const CredentialId = Type.String({ minLength: 1, maxLength: 1_366, pattern: '^[A-Za-z0-9_-]+$' });
const PasskeyName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '\\S',
  description: 'The name the person gives the passkey (where it lives: "work laptop")',
});

/** POST registration/passkey/open: the authenticator's answer to registration/passkey/options. */
export const RegistrationPasskeyOpenRequest = Type.Object(
  { credential: PasskeyAuthenticationResponse },
  strict,
);
export type RegistrationPasskeyOpenRequest = Type.Static<typeof RegistrationPasskeyOpenRequest>;

export const UserPasskey = Type.Object({
  id: Type.String({ description: 'The credential id (base64url)' }),
  name: Type.String(),
  createdAt: Type.String({ description: 'ISO-8601 UTC' }),
  lastUsedAt: Type.Union([Type.String({ description: 'ISO-8601 UTC' }), Type.Null()]),
});
export type UserPasskey = Type.Static<typeof UserPasskey>;
export const UserPasskeyListResult = Type.Object({ passkeys: Type.Array(UserPasskey) });
export type UserPasskeyListResult = Type.Static<typeof UserPasskeyListResult>;

/** POST passkeys/add: the authenticator's answer to passkeys/options, and its name. */
export const UserPasskeyAddRequest = Type.Object(
  { credential: PasskeyRegistrationResponse, name: PasskeyName },
  strict,
);
export type UserPasskeyAddRequest = Type.Static<typeof UserPasskeyAddRequest>;
export const UserPasskeyAddResult = Type.Object({ passkey: UserPasskey });
export const UserPasskeyRenameRequest = Type.Object({ id: CredentialId, name: PasskeyName }, strict);
export type UserPasskeyRenameRequest = Type.Static<typeof UserPasskeyRenameRequest>;
export const UserPasskeyRemoveRequest = Type.Object({ id: CredentialId }, strict);
export type UserPasskeyRemoveRequest = Type.Static<typeof UserPasskeyRemoveRequest>;
