import { startServer } from './start-server';

/**
 * One server for the whole run. Its address reaches the test workers through the environment,
 * which they inherit from the runner.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const server = await startServer();
  process.env.DEA_E2E_BASE_URL = server.baseUrl;
  return server.stop;
}
