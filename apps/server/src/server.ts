import { PAGE_BASE_PATH } from '@dea/contract';
import { buildApp } from './app.js';
import { purgeExpired, startServices } from './bootstrap.js';
import { ConfigError, loadConfigWithFile } from './config.js';
import { createLogger } from './logging.js';
import { startRadius } from './radius/start-radius.js';
import { DEMO_PASSWORD, DEMO_USERS } from './seed/demo-data.js';

const PURGE_INTERVAL_MS = 10 * 60_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfigWithFile(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const { services, seededDemo, generatedSecret } = await startServices(config);
  if (generatedSecret) logger.info({ dataDir: config.dataDir }, 'generated a new server secret');
  if (services.store.kind === 'postgres' && config.secret === '') {
    logger.warn('DEA_SECRET is not set: every instance on this PostgreSQL must share the same secret');
  }
  const outboxTypes = Object.entries(config.delivery.routes).filter(([, provider]) => provider === 'outbox');
  if (services.store.kind === 'postgres' && outboxTypes.length > 0) {
    logger.warn(
      { channelTypes: outboxTypes.map(([type]) => type) },
      'codes of these channel types go to the outbox, not to users: configure a provider or switch the type off',
    );
  }
  const app = await buildApp({ services, logger });
  const purge = setInterval(() => {
    purgeExpired(services).catch((error: unknown) => logger.error({ err: error }, 'purge failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();

  const radius = await startRadius(services, logger);
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    clearInterval(purge);
    Promise.all([app.close(), radius?.close()])
      .then(() => services.store.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const lines = [
    '',
    `Emergency Access is running: http://${shownHost}:${port}${PAGE_BASE_PATH}`,
    `  store: ${services.store.kind === 'sqlite' ? `embedded (${config.dataDir})` : 'PostgreSQL'}`,
  ];
  if (radius !== undefined) lines.push(`  RADIUS: udp ${config.radius.host}:${radius.port}`);
  const hasDemoUsers =
    services.store.kind === 'sqlite' &&
    config.demo !== false &&
    (await Promise.all(DEMO_USERS.map((demo) => services.store.users.findByUsername(demo.username)))).every(
      Boolean,
    );
  if (hasDemoUsers) {
    lines.push(`  demo users${seededDemo ? ' (just created)' : ''}, password "${DEMO_PASSWORD}" for each:`);
    for (const demo of DEMO_USERS) lines.push(`    ${demo.username.padEnd(14)} ${demo.what}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Emergency Access failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
