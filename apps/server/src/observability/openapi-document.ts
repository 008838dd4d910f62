import {
  APP_VERSION,
  BrandingList,
  ChannelMap,
  ChannelsRequest,
  CreateAndSendRequest,
  CreateAndSendResult,
  CreateCodeRequest,
  CreateCodeResult,
  EmptyRequest,
  ErrorEnvelope,
  LanguageList,
  MessageDictionary,
  PolicyRequest,
  PolicyResult,
  SignInRequest,
  SignInResult,
  SuccessEnvelope,
  UserGetRequest,
  UserGetResult,
  UserInfo,
  VerifyRequest,
  VerifyResult,
} from '@dea/contract';

/** The schemas are the very objects the routes validate with: the document cannot drift. */
type Schema = object;
type Security = 'session' | 'serviceKey' | 'none';

interface Operation {
  method: 'get' | 'post';
  path: string;
  summary: string;
  security: Security;
  request?: Schema;
  /** The `result` of the envelope, or the whole answer when `bare`. */
  result: Schema;
  bare?: boolean;
  query?: Record<string, Schema>;
}

const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/dea/api/userinfo',
    summary: 'Who is signed in',
    security: 'session',
    request: EmptyRequest,
    result: UserInfo,
    bare: true,
  },
  {
    method: 'get',
    path: '/dea/api/resourceFile/getLanguageList',
    summary: 'Languages with a catalog',
    security: 'none',
    result: LanguageList,
  },
  {
    method: 'post',
    path: '/dea/api/user/get',
    summary: "The signed-in user's id and locale",
    security: 'session',
    request: UserGetRequest,
    result: UserGetResult,
  },
  {
    method: 'post',
    path: '/dea/api/customizationConfig/getCurrentConfig',
    summary: 'Branding entries',
    security: 'none',
    request: EmptyRequest,
    result: BrandingList,
  },
  {
    method: 'post',
    path: '/dea/api/user/getPolicy',
    summary: "The signed-in user's policy of a category",
    security: 'session',
    request: PolicyRequest,
    result: PolicyResult,
  },
  {
    method: 'post',
    path: '/dea/api/user/queryAvailableChannels',
    summary: "The signed-in user's channels, masked, with opaque references",
    security: 'session',
    request: ChannelsRequest,
    result: ChannelMap,
  },
  {
    method: 'post',
    path: '/dea/api/tempPass/create',
    summary: 'Issue a code shown on screen',
    security: 'session',
    request: CreateCodeRequest,
    result: CreateCodeResult,
  },
  {
    method: 'post',
    path: '/dea/api/tempPass/createAndSend',
    summary: 'Issue a code and send it to one of the user’s channels',
    security: 'session',
    request: CreateAndSendRequest,
    result: CreateAndSendResult,
  },
  {
    method: 'get',
    path: '/dea/api/message',
    summary: 'The message catalog of a language',
    security: 'none',
    result: MessageDictionary,
    bare: true,
    query: { lang: { type: 'string' } },
  },
  {
    method: 'post',
    path: '/dea/api/tempPass/verify',
    summary: 'Verify (and consume) a code',
    security: 'serviceKey',
    request: VerifyRequest,
    result: VerifyResult,
  },
  {
    method: 'post',
    path: '/login/api/session',
    summary: 'Sign in',
    security: 'none',
    request: SignInRequest,
    result: SignInResult,
  },
];

const SECURITY: Record<Security, Record<string, string[]>[]> = {
  session: [{ sessionCookie: [], xsrfToken: [] }],
  serviceKey: [{ serviceKey: [] }],
  none: [],
};

const json = (schema: Schema) => ({ 'application/json': { schema } });

const RETRY_AFTER = {
  'Retry-After': {
    description: 'With error 140: seconds to wait before trying again',
    schema: { type: 'integer', minimum: 1 },
  },
};

/**
 * Every answer the server can give to the operation, business errors included: a business
 * failure is HTTP 200 with the error envelope (DESIGN section 2), so 200 is one of the two.
 */
function responses(operation: Operation): Record<string, unknown> {
  const failure = (description: string) => ({ description, content: json(ErrorEnvelope) });
  return {
    200: operation.bare
      ? { description: 'The answer', content: json(operation.result) }
      : {
          description:
            'Success (error 0, with the result) or a business error (error > 0, result null or the wait)',
          headers: RETRY_AFTER,
          content: json({ oneOf: [SuccessEnvelope(operation.result as never), ErrorEnvelope] }),
        },
    400: failure('Malformed or invalid request, or a URL that does not decode (error 2); nothing changed'),
    ...(operation.security === 'session' && {
      401: failure('The session has expired (error 3)'),
      403: failure('No session, or a missing or wrong X-XSRF-TOKEN (error 3)'),
    }),
    ...(operation.security === 'serviceKey' && {
      401: failure('Missing, wrong or revoked service key, or one without the verify scope (error 3)'),
    }),
    408: { description: 'The request did not arrive in full within DEA_REQUEST_TIMEOUT_SECONDS (no body)' },
    500: failure('Internal error (error 1); the details are in the server log only'),
  };
}

/** OpenAPI 3.1 (JSON Schema 2020-12 compatible) description of every call. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method]: {
        summary: operation.summary,
        security: SECURITY[operation.security],
        ...(operation.query && {
          parameters: Object.entries(operation.query).map(([name, schema]) => ({
            name,
            in: 'query',
            required: false,
            schema,
          })),
        }),
        ...(operation.request && { requestBody: { required: false, content: json(operation.request) } }),
        responses: responses(operation),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Emergency Access API',
      version: APP_VERSION,
      description:
        'Every answer but userinfo and message is the envelope {error, message, result}. Error numbers: 0 ok, 1 internal, 2 invalid request, 3 not permitted, 130 unknown channel or recipient, 140 too many requests, 148 code store full, 150 delivery failed.',
    },
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'dea_session' },
        xsrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-XSRF-TOKEN',
          description: 'The value of the XSRF-TOKEN cookie, on every non-GET call',
        },
        serviceKey: { type: 'http', scheme: 'bearer', description: 'A service key: dea_<id>.<secret>' },
      },
    },
    paths,
  };
}

export const DOCUMENTED_ROUTES = OPERATIONS.map(
  (operation) => `${operation.method.toUpperCase()} ${operation.path}`,
);
