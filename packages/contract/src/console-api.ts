import Type from 'typebox';

const strict = { additionalProperties: false } as const;

/** Where the console's calls live; the console's page is served at CONSOLE_PAGE_PATH. */
export const CONSOLE_API_BASE_PATH = '/dea/admin-api/';
export const CONSOLE_PAGE_PATH = '/admin/';

export const CONSOLE_ROLE_NAMES = ['admin', 'helpdesk', 'auditor'] as const;
export const ConsoleRole = Type.Union([
  Type.Literal('admin'),
  Type.Literal('helpdesk'),
  Type.Literal('auditor'),
]);
export type ConsoleRole = Type.Static<typeof ConsoleRole>;

// POST session: the password, the first of the console's two factors
export const ConsoleSignInRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  strict,
);
export type ConsoleSignInRequest = Type.Static<typeof ConsoleSignInRequest>;
export const ConsoleSignInResult = Type.Object({
  next: Type.Union([Type.Literal('register-passkey'), Type.Literal('passkey')], {
    description: 'register-passkey the first time, then passkey',
  }),
});
export type ConsoleSignInResult = Type.Static<typeof ConsoleSignInResult>;

// GET me
export const ConsoleMe = Type.Object({
  username: Type.String(),
  displayName: Type.String(),
  role: ConsoleRole,
  passkeyVerified: Type.Boolean({ description: 'false: only the password so far; the passkey step is next' }),
});
export type ConsoleMe = Type.Static<typeof ConsoleMe>;

/** What the browser's WebAuthn API answers, as @simplewebauthn/browser hands it over (JSON). */
const Base64Url = Type.String({ minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+$' });
const ClientResponse = {
  id: Base64Url,
  rawId: Base64Url,
  type: Type.Literal('public-key'),
  clientExtensionResults: Type.Object({}),
  authenticatorAttachment: Type.Optional(
    Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')]),
  ),
};
export const PasskeyRegistrationResponse = Type.Object({
  ...ClientResponse,
  response: Type.Object({
    clientDataJSON: Base64Url,
    attestationObject: Base64Url,
    transports: Type.Optional(
      Type.Array(
        Type.Union(
          ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'].map((name) =>
            Type.Literal(name),
          ),
        ),
        { maxItems: 10 },
      ),
    ),
    authenticatorData: Type.Optional(Base64Url),
    publicKey: Type.Optional(Base64Url),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
  }),
});
export type PasskeyRegistrationResponse = Type.Static<typeof PasskeyRegistrationResponse>;
export const PasskeyAuthenticationResponse = Type.Object({
  ...ClientResponse,
  response: Type.Object({
    clientDataJSON: Base64Url,
    authenticatorData: Base64Url,
    signature: Base64Url,
    userHandle: Type.Optional(Base64Url),
  }),
});
export type PasskeyAuthenticationResponse = Type.Static<typeof PasskeyAuthenticationResponse>;
/** The options to hand to the browser's WebAuthn API (PublicKeyCredential*OptionsJSON). */
export const PasskeyOptions = Type.Record(Type.String(), Type.Unknown(), {
  description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON',
});
