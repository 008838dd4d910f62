import Type from 'typebox';
import { BrandingList, PolicyOptions } from './api.js';
import { BRANDING_NAMES, type BrandingName } from './branding.js';
import { POLICY_CATEGORY_CHANNEL_REGISTRATION } from './channel-registration.js';
import { LANGUAGE_CODE_PATTERN } from './languages.js';
import {
  PASSWORD_MAX_LENGTH,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  SERVICE_KEY_SCOPES,
} from './constants.js';

const strict = { additionalProperties: false } as const;

/** Where the console's calls live; the console's page is served at CONSOLE_PAGE_PATH. */
export const CONSOLE_API_BASE_PATH = '/dea/admin-api/';
export const CONSOLE_PAGE_PATH = '/admin/';
/** The console's session cookies (with the __Host- prefix behind TLS) and the header its page echoes the token in. */
export const CONSOLE_SESSION_COOKIE_NAME = 'dea_console';
export const CONSOLE_TOKEN_COOKIE_NAME = 'dea_console_token';
export const CONSOLE_TOKEN_HEADER_NAME = 'X-Console-Token';

export const CONSOLE_ROLE_NAMES = ['admin', 'helpdesk', 'auditor'] as const;
export const ConsoleRole = Type.Union([
  Type.Literal('admin'),
  Type.Literal('helpdesk'),
  Type.Literal('auditor'),
]);
export type ConsoleRole = Type.Static<typeof ConsoleRole>;

/** The roles that may issue codes; a group's "Help Desk" policy narrows them (both when it has none). */
export const CONSOLE_ISSUER_ROLES = ['admin', 'helpdesk'] as const;
export const HelpDeskPolicyOptions = Type.Object(
  {
    issuers: Type.Array(Type.Union([Type.Literal('admin'), Type.Literal('helpdesk')]), {
      maxItems: 2,
      uniqueItems: true,
      description: 'The console roles that may give a member of the group a code',
    }),
  },
  strict,
);
export type HelpDeskPolicyOptions = Type.Static<typeof HelpDeskPolicyOptions>;

// POST session: the password, the first of the console's two factors
export const ConsoleSignInRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
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

// GET oidc: how the console's sign-in screen may sign in besides local accounts
export const ConsoleSignInOptions = Type.Object({
  provider: Type.Union([Type.Object({ name: Type.String() }), Type.Null()], {
    description:
      'The OpenID provider to sign in with ("Sign in with <name>"), null without DEA_CONSOLE_OIDC_ISSUER',
  }),
});
export type ConsoleSignInOptions = Type.Static<typeof ConsoleSignInOptions>;

/** Where the OpenID sign-in begins and where the provider sends the browser back (under the console API). */
export const CONSOLE_OIDC_START_PATH = `${CONSOLE_API_BASE_PATH}oidc/start`;
/** The console page's fragment naming why a sign-in through the provider was refused: #oidc-refused=<reason>. */
export const CONSOLE_OIDC_REFUSED_FRAGMENT = 'oidc-refused';
export const CONSOLE_OIDC_REFUSALS = [
  'provider-unavailable',
  'provider-error',
  'state-unknown',
  'wrong-issuer',
  'token-refused',
  'mfa-missing',
  'unmapped',
  'disabled',
  'username-taken',
  'refresh-failed',
] as const;
export type ConsoleOidcRefusal = (typeof CONSOLE_OIDC_REFUSALS)[number];

// GET me
export const ConsoleMe = Type.Object({
  username: Type.String(),
  displayName: Type.String(),
  role: ConsoleRole,
  passkeyVerified: Type.Boolean({ description: 'false: only the password so far; the passkey step is next' }),
  next: Type.Union([Type.Literal('register-passkey'), Type.Literal('passkey'), Type.Null()], {
    description: 'The passkey step still to do, null once it is done',
  }),
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
/** The token of a console account's one-time enrolment link (the console's address after #enrol=). */
export const CONSOLE_ENROLMENT_FRAGMENT = 'enrol=';
const EnrolmentToken = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9_-]+$',
  description:
    "The token of the account's enrolment link (dea admin add, dea admin reset-passkeys): needed for its first passkey",
});
// POST passkey/registration/options
export const PasskeyRegistrationOptionsRequest = Type.Object(
  { enrolment: Type.Optional(EnrolmentToken) },
  strict,
);
export type PasskeyRegistrationOptionsRequest = Type.Static<typeof PasskeyRegistrationOptionsRequest>;
export const PasskeyRegistrationResponse = Type.Object({
  ...ClientResponse,
  enrolment: Type.Optional(EnrolmentToken),
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

// Help desk (roles admin and helpdesk; every call needs the passkey of this session)
export const HelpDeskSearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 2,
      maxLength: 200,
      description: 'A name, a user name, or the last digits of a channel',
    }),
  },
  strict,
);
export type HelpDeskSearchQuery = Type.Static<typeof HelpDeskSearchQuery>;
export const HelpDeskUserSummary = Type.Object({
  id: Type.String(),
  username: Type.String(),
  fullName: Type.String(),
  source: Type.String(),
  disabled: Type.Boolean(),
  groups: Type.Array(Type.String()),
});
export const HelpDeskSearchResult = Type.Object({ users: Type.Array(HelpDeskUserSummary) });
export type HelpDeskSearchResult = Type.Static<typeof HelpDeskSearchResult>;

export const HelpDeskUserParams = Type.Object(
  { userId: Type.String({ minLength: 1, maxLength: 64 }) },
  strict,
);
export type HelpDeskUserParams = Type.Static<typeof HelpDeskUserParams>;
export const HelpDeskUser = Type.Object({
  user: HelpDeskUserSummary,
  mayIssue: Type.Boolean({
    description:
      'false when the user is disabled (the help desk gives them nothing); a user whose "Help Desk" group policy leaves this role out is not shown at all',
  }),
  offers: Type.Object(
    {
      onScreen: Type.Boolean({ description: 'A code may be shown to the agent' }),
      channels: Type.Array(Type.String(), {
        description:
          "References of the channels a code may be sent to: none when the user's policy shows codes on screen",
      }),
    },
    { description: "What the help desk may give this user, by the user's policy and channels" },
  ),
  policy: Type.Object({
    enableECode: Type.Boolean(),
    emergencyCodeDelivery: Type.String(),
    codeValidityMinutes: Type.Integer(),
    maxUnusedCodes: Type.Integer(),
  }),
  channels: Type.Array(
    Type.Object({
      key: Type.String(),
      masked: Type.String(),
      reference: Type.String({ description: 'The opaque reference to send a code to' }),
      waiting: Type.Union([Type.Literal('cooling'), Type.Literal('proof-expired'), Type.Null()], {
        description:
          'Why the channel may not receive codes now: cooling (registered by its person, registrationCoolingHours), proof-expired (to be proven again, reproveAfterDays); null when it may',
      }),
      usableFrom: Type.Union([Type.String(), Type.Null()], {
        description: 'When a cooling channel may receive codes; null otherwise',
      }),
    }),
  ),
  codes: Type.Array(
    Type.Object({
      id: Type.String(),
      channel: Type.String({ description: 'screen, or the send type it went to' }),
      createdAt: Type.String(),
      expiresAt: Type.String(),
      usesLeft: Type.Integer(),
    }),
  ),
  lock: Type.Object({
    failures: Type.Integer(),
    locked: Type.Boolean(),
    lockedUntil: Type.Union([Type.String(), Type.Null()]),
  }),
  sessions: Type.Array(Type.Object({ createdAt: Type.String(), lastSeenAt: Type.String() })),
  audit: Type.Array(
    Type.Object({
      at: Type.String(),
      event: Type.String(),
      actor: Type.Union([Type.String(), Type.Null()]),
      details: Type.Record(Type.String(), Type.Unknown()),
    }),
  ),
  registrationUndone: Type.Optional(
    Type.Object(
      {
        passwordKnownSince: Type.Union([Type.String(), Type.Null()], {
          description:
            'When the person last undid a registration ("this was not me"), unless a password was set after it: someone else knows their password; null otherwise',
        }),
        blocked: Type.Array(
          Type.Object({
            channel: Type.String({ description: 'The send type' }),
            to: Type.String({ description: 'The masked address' }),
            blockedAt: Type.String(),
          }),
          { description: 'The addresses the person may not register again until the help desk allows them' },
        ),
      },
      { description: 'What an undo of a registration left for the help desk (ADR 0034)' },
    ),
  ),
});
export type HelpDeskUser = Type.Static<typeof HelpDeskUser>;

export const HelpDeskIssueRequest = Type.Object(
  {
    reason: Type.String({
      minLength: 5,
      maxLength: 500,
      description: 'Why the caller gets a code (a ticket number, how they were identified)',
    }),
  },
  strict,
);
export type HelpDeskIssueRequest = Type.Static<typeof HelpDeskIssueRequest>;
export const HelpDeskIssueResult = Type.Object({
  code: Type.String({ description: 'Shown once to the agent; never stored in clear' }),
  expiresAt: Type.String(),
});
export type HelpDeskIssueResult = Type.Static<typeof HelpDeskIssueResult>;
export const HelpDeskRevokeRequest = Type.Object(
  {
    codeId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'One code; without it, every unused code' }),
    ),
  },
  strict,
);
export type HelpDeskRevokeRequest = Type.Static<typeof HelpDeskRevokeRequest>;
export const HelpDeskCountResult = Type.Object({ count: Type.Integer() });
/** A one-time registration link for the user: shown once to the agent, to be given to the caller. */
export const HelpDeskRegistrationLinkResult = Type.Object({
  url: Type.String(),
  expiresAt: Type.String({ description: 'ISO-8601 UTC' }),
});
export type HelpDeskCountResult = Type.Static<typeof HelpDeskCountResult>;

// Audit (roles admin and auditor; after the passkey)
export const ConsoleAuditQuery = Type.Object(
  {
    event: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    username: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The user the entry is about' }),
    ),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'Who acted: cli, console:<account>, service-key:<name>, ...',
      }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'From this time (inclusive)' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: "The previous page's next" })),
    limit: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1 to 500, 50 when not given' }),
    ),
  },
  strict,
);
export type ConsoleAuditQuery = Type.Static<typeof ConsoleAuditQuery>;
export const ConsoleAuditEntry = Type.Object({
  id: Type.String(),
  at: Type.String(),
  event: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
  username: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Union([Type.String(), Type.Null()]),
  clientAddress: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type ConsoleAuditEntry = Type.Static<typeof ConsoleAuditEntry>;
export const ConsoleAuditPage = Type.Object({
  entries: Type.Array(ConsoleAuditEntry),
  next: Type.Union([Type.String(), Type.Null()], {
    description: 'The cursor of the next (older) page; null at the end',
  }),
});
export type ConsoleAuditPage = Type.Static<typeof ConsoleAuditPage>;
export const HelpDeskSendRequest = Type.Object(
  {
    reason: Type.String({ minLength: 5, maxLength: 500 }),
    recipient: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "One of the user's channel references",
    }),
  },
  strict,
);
export type HelpDeskSendRequest = Type.Static<typeof HelpDeskSendRequest>;
export const HelpDeskSendResult = Type.Object({ to: Type.String({ description: 'The masked recipient' }) });
export type HelpDeskSendResult = Type.Static<typeof HelpDeskSendResult>;

// Administration (role admin; after the passkey)
const AnyOptions = Type.Record(Type.String(), Type.Unknown());
export const AdminGroup = Type.Object({
  id: Type.String(),
  name: Type.String(),
  priority: Type.Integer(),
  members: Type.Integer(),
  stored: Type.Union([AnyOptions, Type.Null()], {
    description: `The group's stored "${POLICY_CATEGORY_SELF_SERVICE}" options; null: none (codes disabled unless another group has one)`,
  }),
  effective: PolicyOptions,
  issuers: Type.Array(Type.String(), { description: 'The console roles that may give its members a code' }),
  screenCodeTrust: Type.Object(
    {
      screenCodeTrustedNetworks: Type.Array(Type.String()),
      screenCodeRememberedDeviceDays: Type.Integer(),
    },
    {
      description:
        'Its "Channel Registration" options for codes on screen: the trusted networks and the days a device stays remembered, the defaults filling what is not stored',
    },
  ),
  owner: Type.String({
    description:
      'Who owns the group: local (an operator), scim (SCIM may rename it and set its SCIM members), ldap or import',
  }),
});
export type AdminGroup = Type.Static<typeof AdminGroup>;
export const AdminGroups = Type.Object({
  groups: Type.Array(AdminGroup),
  defaults: PolicyOptions,
});
export type AdminGroups = Type.Static<typeof AdminGroups>;
export const AdminGroupCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    priority: Type.Integer({ minimum: -9_999_999, maximum: 9_999_999 }),
  },
  strict,
);
export type AdminGroupCreate = Type.Static<typeof AdminGroupCreate>;
export const AdminGroupParams = Type.Object(
  { groupId: Type.String({ minLength: 1, maxLength: 64 }) },
  strict,
);
export type AdminGroupParams = Type.Static<typeof AdminGroupParams>;
export const AdminPolicyChange = Type.Object(
  {
    category: Type.Union([
      Type.Literal(POLICY_CATEGORY_SELF_SERVICE),
      Type.Literal(POLICY_CATEGORY_HELP_DESK),
      Type.Literal(POLICY_CATEGORY_CHANNEL_REGISTRATION),
    ]),
    options: Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 20 }),
  },
  strict,
);
export type AdminPolicyChange = Type.Static<typeof AdminPolicyChange>;
/** What a call that adds something answers: the new thing's id. */
export const CreatedId = Type.Object({ id: Type.String() });
/** A group's owner after the change ('local' or 'scim'). */
export const AdminGroupOwner = Type.Object({ owner: Type.String() });
/** How many texts a new language starts with (those of the language it starts from). */
export const AdminLanguageAdded = Type.Object({ texts: Type.Integer() });
/** How many sessions of a console account a change ended. */
export const AdminSessionsEnded = Type.Object({ sessionsEnded: Type.Integer() });

export const AdminGroupOwnerChange = Type.Object(
  { owner: Type.Union([Type.Literal('local'), Type.Literal('scim')]) },
  strict,
);
export type AdminGroupOwnerChange = Type.Static<typeof AdminGroupOwnerChange>;
export const AdminPolicyResult = Type.Object({ options: AnyOptions });

export const AdminServiceKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});
export type AdminServiceKey = Type.Static<typeof AdminServiceKey>;
export const AdminServiceKeys = Type.Object({ keys: Type.Array(AdminServiceKey) });
export type AdminServiceKeys = Type.Static<typeof AdminServiceKeys>;
export const AdminServiceKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Type.Union([Type.Literal('verify'), Type.Literal('scim')]), {
      minItems: 1,
      maxItems: SERVICE_KEY_SCOPES.length,
      uniqueItems: true,
    }),
  },
  strict,
);
export type AdminServiceKeyCreate = Type.Static<typeof AdminServiceKeyCreate>;
export const AdminServiceKeyCreated = Type.Object({
  key: Type.String({ description: 'Shown once; the store keeps only a keyed hash' }),
  serviceKey: AdminServiceKey,
});
export type AdminServiceKeyCreated = Type.Static<typeof AdminServiceKeyCreated>;
export const AdminServiceKeyParams = Type.Object(
  { keyId: Type.String({ minLength: 1, maxLength: 64 }) },
  strict,
);
export type AdminServiceKeyParams = Type.Static<typeof AdminServiceKeyParams>;

export const AdminSettings = Type.Object({
  settings: Type.Array(
    Type.Object({
      name: Type.String(),
      value: Type.String({
        description: 'Secrets show only "(set)"; addresses without credentials or query',
      }),
      isDefault: Type.Boolean(),
      secret: Type.Boolean(),
    }),
  ),
});
export type AdminSettings = Type.Static<typeof AdminSettings>;

export const AdminBranding = Type.Object({ entries: BrandingList });
export type AdminBranding = Type.Static<typeof AdminBranding>;
const BrandingNameSchema = Type.Unsafe<BrandingName>(
  Type.Union(BRANDING_NAMES.map((name) => Type.Literal(name))),
);
export const AdminBrandingSet = Type.Object(
  {
    name: BrandingNameSchema,
    value: Type.String({
      maxLength: 720_000,
      description: 'Text, HTML, CSS, or an image URL or data:image URL (512 KiB at most)',
    }),
  },
  strict,
);
export type AdminBrandingSet = Type.Static<typeof AdminBrandingSet>;
export const AdminBrandingReset = Type.Object({ name: BrandingNameSchema }, strict);
export type AdminBrandingReset = Type.Static<typeof AdminBrandingReset>;
/** The body limit of the branding call: an image as a data URL of 512 KiB, in JSON. */
export const BRANDING_BODY_LIMIT_BYTES = 768 * 1024;

export const AdminLanguages = Type.Object({
  languages: Type.Array(
    Type.Object({
      code: Type.String(),
      name: Type.String(),
      texts: Type.Integer(),
      missing: Type.Integer({ description: 'Text keys the language lacks (English shows instead)' }),
    }),
  ),
});
export type AdminLanguages = Type.Static<typeof AdminLanguages>;
export const AdminLanguageParams = Type.Object(
  { language: Type.String({ minLength: 2, maxLength: 35, pattern: LANGUAGE_CODE_PATTERN }) },
  strict,
);
export type AdminLanguageParams = Type.Static<typeof AdminLanguageParams>;
export const AdminTexts = Type.Object({
  language: Type.String(),
  texts: Type.Array(
    Type.Object({
      key: Type.String(),
      english: Type.String(),
      text: Type.Union([Type.String(), Type.Null()], { description: 'null: missing, English shows instead' }),
    }),
  ),
});
export type AdminTexts = Type.Static<typeof AdminTexts>;
/** Texts saved at once: more than a catalog's keys, so a language translated in the console is one save. */
export const TEXTS_PER_SAVE = 1000;
export const AdminTextsSet = Type.Object(
  {
    texts: Type.Record(Type.String({ maxLength: 100 }), Type.String({ minLength: 1, maxLength: 1000 }), {
      minProperties: 1,
      maxProperties: TEXTS_PER_SAVE,
    }),
  },
  strict,
);
export type AdminTextsSet = Type.Static<typeof AdminTextsSet>;
export const AdminTextsSetResult = Type.Object({ added: Type.Integer(), replaced: Type.Integer() });
export type AdminTextsSetResult = Type.Static<typeof AdminTextsSetResult>;
/** The body limit of saving texts: TEXTS_PER_SAVE texts of 1,000 characters (up to 2.5 KB each as JSON). */
export const TEXTS_BODY_LIMIT_BYTES = TEXTS_PER_SAVE * 2560;
export const AdminLanguageAdd = Type.Object(
  {
    code: Type.String({ minLength: 2, maxLength: 35, pattern: LANGUAGE_CODE_PATTERN }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    from: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 35,
        pattern: LANGUAGE_CODE_PATTERN,
        description: 'en when not given',
      }),
    ),
  },
  strict,
);
export type AdminLanguageAdd = Type.Static<typeof AdminLanguageAdd>;

/**
 * Why the directory refused an account whatever the password (Active Directory's sub-reasons of
 * a refused bind): the person's directory account needs attention, not their typing.
 * Audited by the server with `signin.failed`; the help desk's view names them.
 */
export const DIRECTORY_ACCOUNT_PROBLEMS = [
  'must-change-password',
  'locked',
  'password-expired',
  'disabled',
  'account-expired',
  'not-allowed-now',
  'not-allowed-here',
] as const;
export type DirectoryAccountProblem = (typeof DIRECTORY_ACCOUNT_PROBLEMS)[number];
