import { startRadiusServer, type RadiusServer } from '../radius/radius-server.js';
import { radiusAuthenticator } from '../radius/start-radius.js';
import type { TestApp } from './test-app.js';

/**
 * A RADIUS server of the app on a free port, for clients on 127.0.0.1 with `secret`, as the app's
 * settings make it; down when the test ends.
 */
export async function appRadiusServer(
  t: TestApp,
  secret: string,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<RadiusServer> {
  const server = await startRadiusServer({
    host: '127.0.0.1',
    port: 0,
    clients: new Map([['127.0.0.1', secret]]),
    rejectMessage: t.services.config.radius.rejectMessage,
    retransmissions: t.services.config.radius.retransmissions,
    now: t.services.now,
    authenticate: radiusAuthenticator(t.services),
  });
  onTestFinished(() => server.close());
  return server;
}
