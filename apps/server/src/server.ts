import { PAGE_BASE_PATH } from '@dea/contract';
import type { Server as HttpsServer } from 'node:https';
import { buildApp, buildManagementApp } from './app.js';
import { readTlsFiles, TlsFilesError } from './http/listener-settings.js';
import { purgeAsScheduled, startServices } from './bootstrap.js';
import { PurgeSchedule } from './domain/retention/retention.js';
import { runScheduledSync } from './directory/scheduled-sync.js';
import { auditSync } from './directory/sync-report.js';
import { SyncRequests } from './directory/sync-requests.js';
import { warnOfProtectedAdmins } from './directory/protected-admins.js';
import { ConfigError, loadConfigWithFile } from './config.js';
import { createLogger } from './logging.js';
import { startRadius } from './radius/start-radius.js';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomToken } from './crypto/ids.js';
import { claimEmbeddedStore } from './store/embedded-store-lock.js';
import { EMBEDDED_STORE_FILE } from './store/open-store.js';
import { OpenPrivateFileError } from './files/private-files.js';
import { checkpointInBackground } from './store/wal-checkpoints.js';
import { StoreError } from './store/store-error.js';
import { DEMO_PASSWORD, DEMO_USERS, demoAccountsIn } from './seed/demo-data.js';
import { RELEASE_VERSION } from './release-version.js';

/** How often the embedded store's log is copied back, off the thread that answers requests. */
const WAL_CHECKPOINT_INTERVAL_MS = 250;
/** How often the server looks for a sync asked by `dea directory sync` (embedded store). */
const SYNC_REQUEST_POLL_MS = 1000;

const USAGE = `Usage: node apps/server/dist/server.js [--demo] [--version] [--help]

Starts the Emergency Access server: the page (/dea/), its API (/dea/api/), the login application,
code verification and, when configured, RADIUS. Settings come from the environment and the JSON
file named by DEA_CONFIG_FILE; every setting is listed with its default in docs/reference/settings.md.

  --demo   demo mode (DEA_DEMO=true): a new, empty embedded store gets the public demo users,
           password "demo", and /dea/outbox shows their messages. For trying the product on
           your own machine only; npm start uses it. Off (and said so) on PostgreSQL and on a
           store holding any user besides the demo users.
  --version  the release's version (${RELEASE_VERSION}).
  --help   this text.
`;

/** The command line: --help prints the usage, --demo turns on demo mode; anything else is refused. */
function readArguments(argv: string[]): { demo: boolean } {
  let demo = false;
  for (const argument of argv) {
    if (argument === '--help' || argument === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (argument === '--version') {
      process.stdout.write(`Emergency Access ${RELEASE_VERSION}\n`);
      process.exit(0);
    } else if (argument === '--demo') {
      demo = true;
    } else {
      process.stderr.write(`unknown argument "${argument}"\n\n${USAGE}`);
      process.exit(2);
    }
  }
  return { demo };
}

async function main(): Promise<void> {
  const { demo } = readArguments(process.argv.slice(2));
  let config;
  try {
    config = loadConfigWithFile(demo ? { ...process.env, DEA_DEMO: 'true' } : process.env);
  } catch (error) {
    if (error instanceof ConfigError) failedToStart(error.message, { problems: error.problems });
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, config.requestLogWaitMs);
  if (config.settingsFiles.read.length > 0) {
    logger.info(
      { files: config.settingsFiles.read },
      `settings read from ${config.settingsFiles.read.join(', ')} (DEA_SETTINGS_FILES)`,
    );
  }
  // Renamed, retired and unknown names in the settings files: said, never a reason not to start.
  for (const notice of config.settingsFiles.notices) logger.warn({ settingsFiles: true }, notice);
  const tlsFiles = config.listeners.tls;
  let tls;
  try {
    tls = tlsFiles === undefined ? undefined : readTlsFiles(tlsFiles);
  } catch (error) {
    if (error instanceof TlsFilesError) failedToStart(error.message);
    throw error;
  }
  // One embedded store, one server: a second one on the same folder is refused before it opens it.
  const serverLock = config.databaseUrl === undefined ? claimEmbeddedStore(config.dataDir) : undefined;
  const { services, seededDemo, demoMode, generatedSecret } = await startServices(config, Date.now, logger);
  const checkpoints =
    serverLock === undefined
      ? undefined
      : checkpointInBackground(
          join(config.dataDir, EMBEDDED_STORE_FILE),
          WAL_CHECKPOINT_INTERVAL_MS,
          (problem) => logger.warn(`${problem}; check the disk and the permissions of DEA_DATA_DIR`),
        );
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
  if (config.directory?.protectedAdminsAllowed === true) warnOfProtectedAdmins(config.directory, logger);
  const app = await buildApp({ services, logger, tls });
  const management = config.listeners.management === undefined ? undefined : await buildManagementApp(app);
  // SIGHUP reloads what can change without a restart: the TLS certificate and key. New connections
  // get the new pair; connections under way keep theirs.
  process.on('SIGHUP', () => {
    if (services.auditExport !== undefined && config.auditExport?.file !== undefined) {
      services.auditExport.reopen();
      logger.info({ file: config.auditExport.file }, 'SIGHUP: the audit file is opened again');
    }
    if (tlsFiles === undefined) {
      logger.info('SIGHUP: no TLS certificate to reload (DEA_TLS_CERT_FILE is not set)');
      return;
    }
    try {
      (app.server as unknown as HttpsServer).setSecureContext(readTlsFiles(tlsFiles));
      logger.info({ certFile: tlsFiles.certFile }, 'SIGHUP: TLS certificate and key reloaded');
    } catch (error) {
      logger.error(`SIGHUP: ${(error as Error).message}; the previous certificate stays in use`);
    }
  });
  const purgeHolder = `${hostname()}:${process.pid}:${randomToken(6)}`;
  const purges = new PurgeSchedule((signal) => purgeAsScheduled(services, purgeHolder, signal));
  const purge =
    config.retention.intervalMs > 0
      ? setInterval(() => {
          const run = purges.start();
          if (run === undefined) {
            logger.info(
              'retention purge skipped: the last one is still under way (it works at most DEA_PURGE_BUSY_PERCENT of the time)',
            );
            return;
          }
          run.then(
            (outcome) => {
              if (!outcome.ran)
                logger.debug({ holder: outcome.holder }, 'retention purge skipped: another instance runs it');
              else if (outcome.stopped)
                logger.info({ removed: outcome.removed }, 'retention purge stopped by the shutdown');
              else logger.info({ removed: outcome.removed }, 'retention purge finished');
            },
            (error: unknown) =>
              logger.error(
                { err: error },
                'retention purge failed; it runs again after DEA_PURGE_INTERVAL_SECONDS',
              ),
          );
        }, config.retention.intervalMs)
      : undefined;
  purge?.unref();
  const directorySync =
    config.directory !== undefined && config.directory.syncMs > 0
      ? setInterval(() => {
          runScheduledSync(services, logger).then(
            (summary) =>
              summary &&
              logger.info(
                {
                  ...summary,
                  failed: summary.failed.length,
                  warnings: summary.warnings.length,
                  skipped: summary.skipped.length,
                },
                'directory sync finished',
              ),
            (error: unknown) =>
              logger.warn({ err: error }, 'directory sync failed: check DEA_LDAP_URL and the directory'),
          );
        }, config.directory.syncMs)
      : undefined;
  directorySync?.unref();
  // On the embedded store, a sync asked by `dea directory sync` is written here, between requests
  // (directory/sync-requests.ts): the command beside the server would hold the file from them.
  const { directoryUsers } = services;
  const syncRequests =
    config.databaseUrl === undefined && directoryUsers !== undefined
      ? new SyncRequests(services.store, directoryUsers, services.now, (summary) =>
          auditSync(services.store, summary, 'cli', services.now()),
        )
      : undefined;
  const syncAsked =
    syncRequests &&
    setInterval(() => {
      syncRequests.take().then(
        (ran) => ran && logger.info('directory sync asked by dea directory sync finished'),
        (error: unknown) => logger.warn({ err: error }, 'directory sync asked by dea directory sync failed'),
      );
    }, SYNC_REQUEST_POLL_MS);
  syncAsked?.unref();

  const radius = await startRadius(services, logger);
  let skipDrain: () => void = () => undefined;
  const shutdown = (signal: string): void => {
    if (app.lifecycle.state !== 'serving') {
      // A second signal: stop waiting for the load balancer.
      skipDrain();
      return;
    }
    app.lifecycle.state = 'draining';
    logger.info(
      { signal, drainSeconds: config.shutdownDrainMs / 1000 },
      'shutting down: /readyz answers 503 while requests are still served (DEA_SHUTDOWN_DRAIN_SECONDS), then the listener closes',
    );
    clearInterval(purge);
    const purgeStopped = purges.stop();
    clearInterval(directorySync);
    clearInterval(syncAsked);
    new Promise<void>((resolve) => {
      skipDrain = resolve;
      setTimeout(resolve, config.shutdownDrainMs);
    })
      .then(() => logger.info('closing the listener; requests under way finish'))
      .then(() => Promise.all([app.close(), radius?.close()]))
      .then(() => management?.close())
      .then(() => purgeStopped)
      .then(() => checkpoints?.close())
      .then(() => services.store.close())
      .then(() => serverLock?.release())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  const url = `${tls === undefined ? 'http' : 'https'}://${listeningAt(app.server.address(), config.host, config.port)}${PAGE_BASE_PATH}`;
  const lines = [
    '',
    `Emergency Access ${RELEASE_VERSION} is running: ${url}`,
    `  store: ${services.store.kind === 'sqlite' ? `embedded (${config.dataDir})` : 'PostgreSQL'}`,
  ];
  let managementUrl: string | undefined;
  if (management !== undefined && config.listeners.management !== undefined) {
    const { port, host } = config.listeners.management;
    await management.listen({ port, host });
    managementUrl = `http://${listeningAt(management.server.address(), host, port)}`;
    lines.push(`  health and metrics: ${managementUrl}/healthz, /readyz, /metrics`);
  }
  if (config.listeners.publicMetrics)
    lines.push(`  metrics on the public port too (DEA_PUBLIC_METRICS=true): block /metrics at the proxy`);
  if (radius !== undefined) lines.push(`  RADIUS: udp ${config.radius.host}:${radius.port}`);
  const demoAccounts = await demoAccountsIn(services.store);
  if (demoAccounts.length > 0) {
    lines.push(`  demo users${seededDemo ? ' (just created)' : ''}, password "${DEMO_PASSWORD}" for each:`);
    for (const { username, what } of DEMO_USERS) {
      if (demoAccounts.includes(username)) lines.push(`    ${username.padEnd(14)} ${what}`);
    }
    lines.push(
      '',
      '  !!! WARNING: this store holds demo accounts with the public password "demo".',
      '  !!! Anyone who reaches this server can sign in with them. For trying the product only:',
      `  !!! remove them (npx dea user remove ${demoAccounts.join(', npx dea user remove ')}) or start on a new store.`,
    );
    logger.warn(
      { accounts: demoAccounts },
      'demo accounts with the public password "demo" exist in this store',
    );
  }
  // Asked for where it may not run: the banner and the log say why, and what to do.
  if (!demoMode.on && demoMode.refusal !== undefined) {
    lines.push(`  ${demoMode.refusal}`);
    logger.warn({ demo: 'off' }, demoMode.refusal);
  }
  // A person at a terminal reads the banner; a service manager or log collector gets JSON only.
  if (process.stdout.isTTY) {
    process.stdout.write(`${lines.join('\n')}\n\n`);
  } else {
    logger.info(
      {
        url,
        managementUrl,
        version: RELEASE_VERSION,
        store: services.store.kind,
        radiusPort: radius?.port,
        demoAccounts,
      },
      `Emergency Access ${RELEASE_VERSION} is running: ${url}${radius === undefined ? '' : `, RADIUS: udp ${config.radius.host}:${radius.port}`}`,
    );
    if (demoAccounts.length > 0) {
      logger.info(
        { accounts: demoAccounts },
        `demo users, password "${DEMO_PASSWORD}" for each: ${demoAccounts.join(', ')}`,
      );
    }
  }
}

/** host:port of a listening server, as a browser on this machine reaches it. */
function listeningAt(address: string | AddressInfo | null, host: string, fallbackPort: number): string {
  const shownHost =
    host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const port = typeof address === 'object' && address !== null ? address.port : fallbackPort;
  return `${shownHost}:${port}`;
}

/** A failure before the server runs: plain text at a terminal, one JSON line for a log collector. */
function failedToStart(message: string, details: Record<string, unknown> = {}): never {
  if (process.stderr.isTTY) process.stderr.write(`Emergency Access failed to start: ${message}\n`);
  else createLogger('info', process.stderr).fatal(details, `Emergency Access failed to start: ${message}`);
  process.exit(1);
}

main().catch((error: unknown) => {
  // A store that cannot be used is the operator's to fix: the cause and the setting, no stack.
  if (error instanceof StoreError) failedToStart(error.message);
  // So is a file holding a secret that others may read (the data folder's secret.key).
  if (error instanceof OpenPrivateFileError) failedToStart(error.message);
  // Anything else is unexpected: the stack trace goes with it, at a terminal and in the log.
  if (error instanceof Error)
    failedToStart(process.stderr.isTTY ? (error.stack ?? error.message) : error.message, { err: error });
  failedToStart(String(error));
});
