import type { Logger } from 'pino';
import type { Services } from '../http/types.js';
import { type RadiusAuthenticate, type RadiusServer, startRadiusServer } from './radius-server.js';
import { replyAttributesOf } from './reply-attributes.js';

/**
 * How RADIUS checks a password: the user name is looked up as a user name (not an id) and the
 * password verified as an emergency code by the same verification as the API (failure count,
 * lockout, single use, audit as radius:<client address>). An accept carries the reply
 * attributes of the user's group.
 */
export function radiusAuthenticator(services: Services, log?: Pick<Logger, 'warn'>): RadiusAuthenticate {
  return async (userName, password, client) => {
    const user = await services.store.users.findByUsername(userName);
    const outcome = await services.verification.verify({
      user,
      code: password,
      actor: `radius:${client}`,
      clientAddress: client,
      now: services.now(),
    });
    if (!outcome.valid || user === undefined) return { accept: false };
    const attributes = await replyAttributesOf(
      services.store,
      services.config.radius.dictionary,
      user.id,
      (problem) => log?.warn({ userId: user.id }, problem),
    );
    return { accept: true, attributes };
  };
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
    authenticate: radiusAuthenticator(services, log),
  });
}
