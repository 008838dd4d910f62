import formbody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateServiceKeyWithUser } from '../domain/codes/service-keys.js';
import { addressList } from '../net/address-ranges.js';
import { bearerToken } from '../http/bearer.js';
import { verifiedOnce } from '../http/idempotency-key.js';
import { isStoreUnavailable } from '../http/envelope.js';
import { codeOf, unavailableReason } from '../store/store-error.js';
import { userNamed } from '../domain/identity/user-names.js';
import { fieldsAsPrivacyIdeaReads } from '../validate-check/plugin-quoting.js';
import { RELEASE_VERSION } from '../release-version.js';

/** Where the plugins of the second-factor server send their checks. */
export const VALIDATE_CHECK_PATH = '/validate/check';

/** The error numbers of privacyIDEA's protocol this endpoint answers with. */
const ERROR = { authentication: 4033, parameter: 905, server: 903 } as const;
/** The longest `user` taken (longer: 400). */
const MAX_USER_LENGTH = 200;

/** Every answer carries these, as the protocol's servers send them. */
function answer(result: Record<string, unknown>, detail: Record<string, unknown> | null) {
  return {
    id: 1,
    jsonrpc: '2.0',
    version: `Emergency Access ${RELEASE_VERSION}`,
    time: Date.now() / 1000,
    result,
    detail,
  };
}

async function refuse(reply: FastifyReply, status: number, code: number, message: string): Promise<void> {
  await reply
    .code(status)
    .header('cache-control', 'no-store')
    .send(answer({ status: false, error: { code, message: `ERR${code}: ${message}` } }, null));
}

/** privacyIDEA's API keys come as the whole Authorization header; a Bearer prefix is taken too. */
function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization?.trim();
  return header === undefined || header === '' ? undefined : (bearerToken(request) ?? header);
}

/** A parameter as the plugins send it: a form field or a JSON member, text only. */
function parameter(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * `POST /validate/check` as privacyIDEA's plugins call it (Keycloak, SimpleSAMLphp, PAM, Windows
 * logon, FreeRADIUS): `user` and `pass` (the emergency code), form-encoded or JSON, `realm`
 * accepted and not used; a form's fields percent-decoded once more for the clients privacyIDEA
 * decodes them twice for (validate-check/plugin-quoting.ts). The answer is that protocol's JSON: `result.value` true for a valid code (consumed), false
 * for every kind of failure, with the one verification rule behind it (lockout, single use,
 * audit). Authorized by a service key with the scope verify, or by the caller's address
 * (DEA_VALIDATE_CHECK_CLIENTS). An Idempotency-Key header makes a retry get the first answer
 * (http/idempotency-key.ts).
 */
export const validateCheckRoute: FastifyPluginAsync = async (app) => {
  const { services } = app;
  const allowedAddress = addressList(services.config.validateCheck.clients);
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  app.setErrorHandler(async (error, request, reply) => {
    if (isStoreUnavailable(error)) {
      request.log.warn(
        { errorCode: codeOf(error), cause: (error as Error).message },
        unavailableReason(error, services.config.dataDir),
      );
      void reply.header('retry-after', '5');
      return refuse(reply, 503, ERROR.server, 'the store is unavailable; try again shortly');
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      request.log.info({ errorCode: codeOf(error) }, 'validate/check request refused');
      return refuse(reply, 400, ERROR.parameter, 'the request body cannot be read');
    }
    request.log.error({ err: error }, 'validate/check failed');
    return refuse(reply, 500, ERROR.server, 'internal error; the details are in the server log');
  });

  app.post(VALIDATE_CHECK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const key = presentedKey(request);
    // The FreeRADIUS plugin's fields come percent-encoded twice: read as privacyIDEA reads them.
    const body = fieldsAsPrivacyIdeaReads(
      request.body,
      request.headers['content-type'],
      request.headers['user-agent'],
    );
    const user = parameter(body, 'user');
    // With a key, the user is read with it (one round trip on PostgreSQL), and counts only once the
    // key is valid. A name too long to be checked is not read (answered 400 below).
    const authenticated =
      key === undefined
        ? undefined
        : await authenticateServiceKeyWithUser(services.store, services.keys, key, 'verify', services.now(), {
            username: user !== undefined && user.length <= MAX_USER_LENGTH ? user : undefined,
          });
    const serviceKey = authenticated?.serviceKey;
    const byAddress = serviceKey === undefined && key === undefined && allowedAddress(request.ip);
    if (serviceKey === undefined && !byAddress) {
      request.log.info(
        { client: request.ip },
        'validate/check refused: no valid service key, address not listed',
      );
      return refuse(
        reply,
        401,
        ERROR.authentication,
        'Authentication failure: a service key with the scope verify in the Authorization header, or a caller listed in DEA_VALIDATE_CHECK_CLIENTS, is needed',
      );
    }
    const pass = parameter(body, 'pass');
    const missing = user === undefined ? 'user' : pass === undefined ? 'pass' : undefined;
    if (missing !== undefined) return refuse(reply, 400, ERROR.parameter, `Missing parameter: '${missing}'`);
    if ((user ?? '').length > MAX_USER_LENGTH || (pass ?? '').length > 128)
      return refuse(reply, 400, ERROR.parameter, 'user or pass is too long');

    // A valid key was read with the user; a listed address reads the user now.
    const found =
      authenticated !== undefined ? authenticated.user : await userNamed(services.store, user ?? '');
    const attempt = {
      actor: serviceKey === undefined ? `validate-check:${request.ip}` : `service-key:${serviceKey.name}`,
      clientAddress: request.ip,
      now: services.now(),
    };
    const realm = parameter(body, 'realm');
    const once = await verifiedOnce(
      request,
      reply,
      services,
      {
        caller: serviceKey === undefined ? `validate-check:${request.ip}` : `service-key:${serviceKey.id}`,
        user: `${realm ?? ''}\u0000${user ?? ''}`,
        fields: { user, pass, realm },
        userId: found?.id,
        attempt,
      },
      () => services.verification.verify({ user: found, code: pass ?? '', ...attempt }),
    );
    if ('refused' in once) return refuse(reply, once.refused.status, ERROR.parameter, once.refused.message);
    void reply.header('cache-control', 'no-store');
    // Every failure answers alike; the audit log tells why.
    return once.valid
      ? answer(
          { status: true, value: true, authentication: 'ACCEPT' },
          { message: 'matching 1 tokens', type: 'emergency' },
        )
      : answer({ status: true, value: false, authentication: 'REJECT' }, { message: 'wrong otp value' });
  });
};
