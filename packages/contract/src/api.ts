import Type from 'typebox';
import type { BRANDING_TYPES } from './branding.js';
import { CHANNEL_KEYS, type SEND_TYPES } from './channels.js';
import { CHANNEL_QUERY_ACTION, CODE_COUNT_PER_REQUEST, PASSWORD_MAX_LENGTH } from './constants.js';
import { ErrorNumber } from './errors.js';
import { LANGUAGE_CODE_PATTERN } from './languages.js';

/**
 * Request and response schemas of /dea/api/ (spec section 7, DESIGN section 2). Requests are
 * strict: a field that is not in the schema is refused, so a typo never passes silently.
 */

const strict = { additionalProperties: false } as const;

export const UserId = Type.String({ minLength: 1, maxLength: 64, description: 'A user id' });
export const Locale = Type.String({
  pattern: LANGUAGE_CODE_PATTERN,
  maxLength: 35,
  description: "A language code such as 'en' or 'pt_BR'",
});
const UserRef = Type.Object({ id: UserId }, strict);

/** Every answer but userinfo and message is an envelope. */
export function Envelope<T extends Type.TSchema>(result: T) {
  return Type.Object({
    error: Type.Integer({ description: '0 for success, otherwise an error number' }),
    message: Type.String({ description: "A message in the request's language" }),
    result,
  });
}
/** A success: error 0 and the call's result. */
export function SuccessEnvelope<T extends Type.TSchema>(result: T) {
  return Type.Object(
    { error: Type.Literal(0), message: Type.String({ description: 'Empty on success' }), result },
    strict,
  );
}
/** With error 148 (the user holds the most unused codes allowed): how many, and when one frees up. */
export const CodeStoreFullResult = Type.Object(
  {
    unusedCodes: Type.Integer({
      minimum: 1,
      description: 'With error 148: how many unused codes the user holds (the most allowed)',
    }),
    nextFreeAt: Type.String({
      format: 'date-time',
      description: 'With error 148: when the oldest of them expires and a new code can be created',
    }),
  },
  strict,
);
export type CodeStoreFullResult = Type.Static<typeof CodeStoreFullResult>;

/** A failure: its error number, a message in the request's language, and no result but a wait. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Integer({ minimum: 1, description: 'The error number (see the list above)' }),
    message: Type.String({ description: "What went wrong, in the request's language" }),
    result: Type.Union([
      Type.Null(),
      Type.Object(
        { retryAfterSeconds: Type.Integer({ minimum: 1, description: 'Also in the Retry-After header' }) },
        strict,
      ),
      Type.Object(
        { loginPath: Type.String({ pattern: '^/', description: 'With HTTP 403: the login application' }) },
        strict,
      ),
      CodeStoreFullResult,
      Type.Object(
        {
          passkey: Type.Union([Type.Literal('again'), Type.Literal('provider')], {
            description:
              'With HTTP 403 from the console: verify the passkey again, then repeat the call; provider: a session of the identity provider signs in there again (oidc/start?again=1)',
          }),
        },
        strict,
      ),
    ]),
    requestId: Type.Optional(
      Type.String({
        description:
          'With HTTP 500 and 503: the id of this request in the server log (every answer has it in the X-Request-Id header); quote it when reporting a failure',
      }),
    ),
  },
  strict,
);
export type ErrorEnvelope = Type.Static<typeof ErrorEnvelope>;
export interface EnvelopeOf<T> {
  error: number;
  message: string;
  result: T;
}

/** The result of a call that has nothing more to say than its success. */
export const NoResult = Type.Object({});

/** The envelope of a success: error 0, no message. */
export function okEnvelope<T>(result: T): EnvelopeOf<T> {
  return { error: ErrorNumber.ok, message: '', result };
}

/** An empty request body: `{}` (or no body at all). */
export const EmptyRequest = Type.Object({}, strict);

// POST userinfo
export const UserInfo = Type.Object({
  fullName: Type.String(),
  lastLogin: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The previous sign-in (ISO-8601 UTC), null on the first one',
  }),
  userId: UserId,
  userLocale: Type.Optional(
    Type.String({ description: "The user's language; absent: none, the page's language rule applies" }),
  ),
});
export type UserInfo = Type.Static<typeof UserInfo>;

// GET resourceFile/getLanguageList
export const Language = Type.Object({
  languageCode: Type.String(),
  languageName: Type.String(),
});
export type Language = Type.Static<typeof Language>;
export const LanguageList = Type.Array(Language);

// POST user/get
export const UserGetField = Type.Union([Type.Literal('id'), Type.Literal('userLocale')]);
export const UserGetRequest = Type.Object(
  {
    match: Type.Array(
      Type.Object({ field: Type.Literal('id'), op: Type.Literal('eq'), value: UserId }, strict),
      { minItems: 1, maxItems: 1 },
    ),
    return: Type.Array(UserGetField, { minItems: 1, maxItems: 2, uniqueItems: true }),
  },
  strict,
);
export type UserGetRequest = Type.Static<typeof UserGetRequest>;
export const UserGetResult = Type.Object({
  id: Type.Optional(UserId),
  userLocale: Type.Optional(Type.String()),
});
export type UserGetResult = Type.Static<typeof UserGetResult>;

// POST customizationConfig/getCurrentConfig
export const BrandingEntry = Type.Object({
  name: Type.String(),
  type: Type.Union([Type.Literal('text'), Type.Literal('html'), Type.Literal('css'), Type.Literal('image')]),
  value: Type.String(),
  isDefault: Type.Boolean(),
});
export type BrandingEntry = Type.Static<typeof BrandingEntry>;
export const BrandingList = Type.Array(BrandingEntry);

// POST user/getPolicy
export const PolicyOptions = Type.Object({
  enableECode: Type.Boolean(),
  emergencyCodeDelivery: Type.String({
    description: "'Channel' sends via a channel; anything else shows the code",
  }),
  codeLength: Type.Integer({ minimum: 6, maximum: 64 }),
  codeAlphabet: Type.String({ minLength: 10, maxLength: 100 }),
  codeValidityMinutes: Type.Integer({ minimum: 1, maximum: 10080 }),
  codeUses: Type.Integer({ minimum: 1, maximum: 100 }),
  maxUnusedCodes: Type.Integer({ minimum: 1, maximum: 100 }),
});
export type PolicyOptions = Type.Static<typeof PolicyOptions>;
export const PolicyRequest = Type.Object(
  {
    user: UserRef,
    category: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, strict),
    return: Type.Array(Type.Literal('options'), { minItems: 1, maxItems: 1 }),
  },
  strict,
);
export type PolicyRequest = Type.Static<typeof PolicyRequest>;
export const PolicyResult = Type.Object({
  options: PolicyOptions,
  screenCodeTrust: Type.Optional(
    Type.Literal('missing', {
      description:
        "Codes are shown on screen to this person only from a trusted network or a remembered device, and this request is from neither: options.emergencyCodeDelivery says 'Channel'",
    }),
  ),
});
export type PolicyResult = Type.Static<typeof PolicyResult>;

// POST user/queryAvailableChannels
export const ChannelsRequest = Type.Object(
  { action: Type.Literal(CHANNEL_QUERY_ACTION), user: UserRef },
  strict,
);
export type ChannelsRequest = Type.Static<typeof ChannelsRequest>;
export const ChannelMap = Type.Object(
  Object.fromEntries(CHANNEL_KEYS.map((key) => [key, Type.Optional(Type.String())])),
  { description: "channel key -> 'masked display value,recipient reference'" },
);
export type ChannelMap = Partial<Record<(typeof CHANNEL_KEYS)[number], string>>;

// POST tempPass/create
export const CreateCodeRequest = Type.Object(
  {
    count: Type.Literal(CODE_COUNT_PER_REQUEST),
    return: Type.Array(Type.Union([Type.Literal('id'), Type.Literal('password')]), {
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
    }),
    attrs: Type.Object({ user: UserRef, locale: Locale }, strict),
  },
  strict,
);
export type CreateCodeRequest = Type.Static<typeof CreateCodeRequest>;

/** A code as the page asks for it: both fields (spec section 7: return [id, password]). */
export const CreatedCode = Type.Object({ id: Type.String(), password: Type.String() });
export type CreatedCode = Type.Static<typeof CreatedCode>;
/** Each row holds the fields `return` asked for, no others. */
export const CreateCodeResult = Type.Object({ rows: Type.Array(Type.Partial(CreatedCode)) });

// POST tempPass/revoke (the product's addition: the page takes back the code it replaces)
export const RevokeCodeRequest = Type.Object(
  { user: UserRef, emergencyCodeId: Type.String({ minLength: 1, maxLength: 64 }) },
  strict,
);
export type RevokeCodeRequest = Type.Static<typeof RevokeCodeRequest>;
export const RevokeCodeResult = Type.Object({
  revoked: Type.Boolean({ description: 'false: the code was already used, expired or revoked' }),
});
export type RevokeCodeResult = Type.Static<typeof RevokeCodeResult>;
export type CreateCodeResult = Type.Static<typeof CreateCodeResult>;

// POST tempPass/createAndSend
export const SendTypeSchema = Type.Union([
  Type.Literal('sms'),
  Type.Literal('smtp'),
  Type.Literal('TELEPHONE'),
  Type.Literal('TWITTER'),
]);
export const CreateAndSendRequest = Type.Object(
  {
    user: UserRef,
    options: Type.Object(
      {
        channel: SendTypeSchema,
        recipient: Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'A recipient reference from queryAvailableChannels',
        }),
      },
      strict,
    ),
    locale: Locale,
  },
  strict,
);
export type CreateAndSendRequest = Type.Static<typeof CreateAndSendRequest>;
export const CreateAndSendResult = Type.Object({ to: Type.String({ description: 'The masked recipient' }) });
export type CreateAndSendResult = Type.Static<typeof CreateAndSendResult>;

// GET message
export const MessageQuery = Type.Object({ lang: Type.Optional(Locale) }, strict);
export const MessageDictionary = Type.Record(Type.String(), Type.String());

// POST tempPass/verify (service key)
export const VerifyRequest = Type.Object(
  {
    userId: Type.Optional(UserId),
    username: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The name the user signs in with' }),
    ),
    code: Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'As typed: spaces and dashes are ignored, and the letter case when the alphabet has one case',
    }),
  },
  { ...strict, description: 'Exactly one of userId and username, with the code' },
);
export type VerifyRequest = Type.Static<typeof VerifyRequest>;
export const VerifyResult = Type.Object({ valid: Type.Boolean() });
/**
 * The headers of a verification besides the service key: an Idempotency-Key (IETF draft
 * httpapi-idempotency-key-header) makes a retry of the request get the first answer.
 */
export const VerifyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Optional: the same value (a UUID, say; 1 to 255 printable ASCII characters, quoted or not) on every attempt of one request. A retry within DEA_VERIFY_IDEMPOTENCY_SECONDS (default 60) from the same service key for the same user gets the first answer, from any instance, instead of a second verification; the same key with another code is refused with 422, and a retry while the first is still being answered with 409.',
    }),
  ),
});
export type VerifyResult = Type.Static<typeof VerifyResult>;

// POST /login/api/session
export const SignInRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  strict,
);
export type SignInRequest = Type.Static<typeof SignInRequest>;
export const SignInResult = Type.Object({ username: Type.String() });
export type SignInResult = Type.Static<typeof SignInResult>;

// The literal unions above must list exactly the contract's constants.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const brandingTypesMatch: Same<BrandingEntry['type'], (typeof BRANDING_TYPES)[number]> = true;
export const sendTypesMatch: Same<Type.Static<typeof SendTypeSchema>, (typeof SEND_TYPES)[number]> = true;
