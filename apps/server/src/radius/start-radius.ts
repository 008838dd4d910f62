import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { type RadiusAuthenticate, type RadiusServer, startRadiusServer } from './radius-server.js';
import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { DomainError } from '../domain/errors.js';
import { resolvePolicy } from '../domain/policies/policy.js';
import { RADIUS_POLICY_CATEGORY, radiusPolicyOf, splitPasswordAndCode } from './radius-policy.js';
import { replyAttributesOf } from './reply-attributes.js';
import { userNamedWithPolicy } from '../domain/identity/user-names.js';

/**
 * How RADIUS checks a password: the user name is looked up as a user name (not an id) and the
 * password verified as an emergency code by the same verification as the API (failure count,
 * lockout, single use, audit as radius:<client address>). When the user's group asks for the
 * password and the code in one field, the password is checked first, as a sign-in checks it
 * (directory bind or local hash, with its throttling), and the code only after a right one. An
 * accept carries the reply attributes of the user's group.
 */
export function radiusAuthenticator(services: Services, log?: Pick<Logger, 'warn'>): RadiusAuthenticate {
  const { store, config } = services;
  return async (userName, password, client) => {
    // The user and their group's RADIUS policy in one read (one round trip a turn on PostgreSQL).
    const found = await userNamedWithPolicy(store, userName, RADIUS_POLICY_CATEGORY);
    const user = found?.user;
    const policy = radiusPolicyOf(found?.policy);
    let code = password;
    if (user !== undefined && policy.passwordAndCode.kind !== 'off') {
      const { codeLength } = resolvePolicy(
        await store.groups.findPolicyOfUser(user.id, POLICY_CATEGORY_SELF_SERVICE),
        config.codeDefaults,
      );
      const parts = splitPasswordAndCode(password, policy.passwordAndCode, codeLength);
      if (!(await passwordRight(services, userName, parts?.password, client))) return { accept: false };
      code = parts?.code ?? '';
    }
    const outcome = await services.verification.verify({
      user,
      code,
      actor: `radius:${client}`,
      clientAddress: client,
      now: services.now(),
    });
    if (!outcome.valid || user === undefined) return { accept: false };
    const attributes = replyAttributesOf(policy.replyAttributes, config.radius.dictionary, (problem) =>
      log?.warn({ userId: user.id }, problem),
    );
    return { accept: true, attributes };
  };
}

/** The first factor as a sign-in checks it; every refusal (wrong, limit, busy, directory down) is no. */
async function passwordRight(
  services: Services,
  username: string,
  password: string | undefined,
  client: string,
): Promise<boolean> {
  try {
    // A field that does not hold both still counts as a wrong password.
    await services.signIn.checkCredentials({ username, password: password ?? '', clientAddress: client });
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/** The RADIUS server of this instance when DEA_RADIUS_PORT is set; undefined otherwise. */
export async function startRadius(services: Services, log?: Logger): Promise<RadiusServer | undefined> {
  const { radius } = services.config;
  if (radius.port === 0) return undefined;
  return startRadiusServer({
    host: radius.host,
    port: radius.port,
    clients: radius.clients,
    log,
    rejectMessage: radius.rejectMessage,
    retransmissions: radius.retransmissions,
    now: services.now,
    authenticate: radiusAuthenticator(services, log),
  });
}
