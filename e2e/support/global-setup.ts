import { startDeliveryPeers } from './delivery-peers';
import { startServer } from './start-server';

/**
 * One server for the whole run, delivering every channel type to the test's own SMTP server and
 * HTTP gateway. Their addresses reach the test workers through the environment, which they
 * inherit from the runner.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const peers = await startDeliveryPeers();
  let server;
  try {
    server = await startServer(peers.serverEnv);
  } catch (error) {
    await peers.stop();
    throw error;
  }
  process.env.DEA_E2E_BASE_URL = server.baseUrl;
  process.env.DEA_E2E_PEERS_URL = peers.url;
  const stopServer = server.stop;
  return async () => {
    await stopServer();
    await peers.stop();
  };
}
