import Type from 'typebox';
import { SEND_TYPES } from './channels.js';

/**
 * The policy category that says how a group's members register their own channels:
 * kept apart from "Self Service", whose options the emergency page reads (spec section 7).
 */
export const POLICY_CATEGORY_CHANNEL_REGISTRATION = 'Channel Registration';

export const ChannelRegistrationPolicyOptions = Type.Object(
  {
    registrationCoolingHours: Type.Integer({
      minimum: 0,
      maximum: 720,
      description: 'Hours a newly registered channel waits before it may receive emergency codes; 0: none',
    }),
    registrationChannelTypes: Type.Array(
      Type.Union([
        Type.Literal('sms'),
        Type.Literal('smtp'),
        Type.Literal('TELEPHONE'),
        Type.Literal('TWITTER'),
      ]),
      {
        maxItems: SEND_TYPES.length,
        uniqueItems: true,
        description: 'The send types a member may register themself; empty: none',
      },
    ),
    registrationMaxChannels: Type.Integer({
      minimum: 0,
      maximum: 8,
      description: 'How many channels a member may hold that they registered themself',
    }),
    reproveAfterDays: Type.Integer({
      minimum: 0,
      maximum: 3650,
      description: 'Days after which a registered address must be proven again; 0: never',
    }),
    screenCodeTrustedNetworks: Type.Array(Type.String({ minLength: 2, maxLength: 49 }), {
      maxItems: 100,
      description:
        'Address ranges (IPv4 or IPv6 CIDR, or one address) from which a code may be shown on screen; empty: none',
    }),
    screenCodeRememberedDeviceDays: Type.Integer({
      minimum: 0,
      maximum: 400,
      description:
        'Days a browser that opened a registration session stays a remembered device, on which a code may be shown on screen; 0: off',
    }),
  },
  { additionalProperties: false },
);
export type ChannelRegistrationPolicyOptions = Type.Static<typeof ChannelRegistrationPolicyOptions>;

/** What a group without this policy gets. */
export const DEFAULT_CHANNEL_REGISTRATION_POLICY: ChannelRegistrationPolicyOptions = {
  registrationCoolingHours: 24,
  registrationChannelTypes: [...SEND_TYPES],
  registrationMaxChannels: 4,
  reproveAfterDays: 0,
  screenCodeTrustedNetworks: [],
  screenCodeRememberedDeviceDays: 0,
};

/**
 * The cookie of a remembered device: HTTP-only, SameSite=Strict, for the page's calls;
 * with screenCodeTrustedNetworks, one of the two reasons to trust a code shown on screen.
 */
export const REMEMBERED_DEVICE_COOKIE_NAME = 'dea_device';

// The channels page's calls, under /dea/api/ beside the emergency page's.
const strict = { additionalProperties: false } as const;
const Token = Type.String({ minLength: 16, maxLength: 200 });
const Code = Type.String({ minLength: 1, maxLength: 40 });
const OptionalLocale = Type.Optional(Type.String({ maxLength: 35 }));

/** The cookie of a registration session: HTTP-only, for the channels page's calls only. */
export const REGISTRATION_COOKIE_NAME = 'dea_registration';

export const RegistrationChallengeRequest = Type.Object(
  { reference: Type.String({ minLength: 1, maxLength: 64 }), locale: OptionalLocale },
  strict,
);
export type RegistrationChallengeRequest = Type.Static<typeof RegistrationChallengeRequest>;
export const RegistrationChallengeResult = Type.Object({
  challengeId: Type.String(),
  to: Type.String({ description: 'The masked recipient' }),
  expiresAt: Type.String({ description: 'ISO-8601 UTC' }),
});
export const RegistrationOpenRequest = Type.Union([
  Type.Object({ challengeId: Type.String({ minLength: 1, maxLength: 64 }), code: Code }, strict),
  Type.Object({ link: Token }, strict),
]);
export type RegistrationOpenRequest = Type.Static<typeof RegistrationOpenRequest>;
export const RegistrationOpenResult = Type.Object({
  expiresAt: Type.String({ description: 'When the registration session ends (ISO-8601 UTC)' }),
});

const ChannelKeyName = Type.Union(
  [
    'mobile',
    'personalMobile',
    'email',
    'personalEmail',
    'telephone',
    'personalTelephone',
    'twitter',
    'personalTwitter',
  ].map((key) => Type.Literal(key)),
);
export const ChannelListResult = Type.Object({
  channels: Type.Array(
    Type.Object({
      state: Type.Union([Type.Literal('registered'), Type.Literal('pending')]),
      key: Type.String(),
      type: Type.String(),
      to: Type.String(),
      reference: Type.Optional(Type.String()),
      proofId: Type.Optional(Type.String()),
      origin: Type.Optional(Type.String({ description: 'source (read-only) or owner' })),
      source: Type.Optional(
        Type.String({ description: "A source's channel: where it comes from (ldap, scim, import, local)" }),
      ),
      usable: Type.Optional(Type.Boolean()),
      triesLeft: Type.Optional(
        Type.Integer({ description: 'An address waiting for its proof: wrong codes it still takes' }),
      ),
      reason: Type.Optional(Type.String({ description: 'cooling or proof-expired' })),
      until: Type.Optional(
        Type.String({ description: 'ISO-8601 UTC: the end of the cooling-off time or of the proof' }),
      ),
    }),
  ),
  policy: Type.Optional(
    Type.Object({
      types: Type.Array(Type.String(), { description: 'The send types the person may register' }),
      max: Type.Integer({ description: 'How many channels the person may hold that they registered' }),
      coolingHours: Type.Integer({ description: 'Hours a new channel waits before it may receive codes' }),
    }),
  ),
});
export type ChannelListResult = Type.Static<typeof ChannelListResult>;
export type ChannelListEntry = ChannelListResult['channels'][number];

/** What the channels page may offer a person without a registration session, and whether one is open. */
export const RegistrationWaysResult = Type.Object({
  open: Type.Boolean({ description: 'A registration session of this person is open (its cookie)' }),
  expiresAt: Type.Optional(Type.String({ description: 'When the open session ends (ISO-8601 UTC)' })),
  oidc: Type.Boolean({ description: "The organisation's identity provider may open one (DEA_OIDC_ISSUER)" }),
  channels: Type.Array(
    Type.Object({ reference: Type.String(), key: Type.String(), type: Type.String(), to: Type.String() }),
    { description: 'The proven channels a code that opens one may go to now, masked' },
  ),
});
export type RegistrationWaysResult = Type.Static<typeof RegistrationWaysResult>;
export const ChannelAddRequest = Type.Object(
  { key: ChannelKeyName, address: Type.String({ minLength: 1, maxLength: 320 }), locale: OptionalLocale },
  strict,
);
export type ChannelAddRequest = Type.Static<typeof ChannelAddRequest>;
export const ChannelAddResult = Type.Object({
  proofId: Type.String(),
  to: Type.String(),
  expiresAt: Type.String(),
});
export const ChannelProveRequest = Type.Object(
  { proofId: Type.String({ minLength: 1, maxLength: 64 }), code: Code, locale: OptionalLocale },
  strict,
);
export const ChannelRemoveRequest = Type.Object({ key: ChannelKeyName }, strict);
export const ChannelTestRequest = Type.Object({ key: ChannelKeyName, locale: OptionalLocale }, strict);
export type ChannelTestRequest = Type.Static<typeof ChannelTestRequest>;
export const ChannelTestResult = Type.Object({ to: Type.String({ description: 'The masked recipient' }) });
export const ChannelUndoRequest = Type.Object({ token: Token }, strict);
export const ChannelChangeResult = Type.Object({ done: Type.Boolean() });
/** What an undo did ("this was not me"): someone else knows the person's password. */
export const ChannelUndoResult = Type.Object({
  done: Type.Boolean(),
  passwordChange: Type.Union([Type.Literal('help-desk'), Type.Literal('organisation')], {
    description:
      'How the person gets a new password: a password link from the help desk (a local user), or the way of the organisation that keeps it (directory, SCIM, import)',
  }),
});
export type ChannelUndoResult = Type.Static<typeof ChannelUndoResult>;
export const DevicesForgetResult = Type.Object({
  forgotten: Type.Integer({ description: 'How many remembered devices were forgotten' }),
});
