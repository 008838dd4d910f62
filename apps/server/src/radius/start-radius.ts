import type { Logger } from 'pino';
import type { Services } from '../http/types.js';
import { type RadiusAuthenticate, type RadiusServer, startRadiusServer } from './radius-server.js';

/**
 * How RADIUS checks a password: the user name is looked up as a user name (not an id) and the
 * password verified as an emergency code by the same verification as the API (failure count,
 * lockout, single use, audit as radius:<client address>).
 */
export function radiusAuthenticator(services: Services): RadiusAuthenticate {
  return async (userName, password, client) => {
    const outcome = await services.verification.verify({
      user: await services.store.users.findByUsername(userName),
      code: password,
      actor: `radius:${client}`,
      clientAddress: client,
      now: services.now(),
    });
    return outcome.valid;
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
    authenticate: radiusAuthenticator(services),
  });
}
