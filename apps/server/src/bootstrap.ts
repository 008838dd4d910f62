import { composeDomain } from './composition.js';
import { RequestTurns } from './domain/bulkheads.js';
import { releaseOf, withReleases } from './store/migrations/index.js';
import { hostname } from 'node:os';
import { newId } from './crypto/ids.js';
import { type Config, exportDestinationsOf } from './config.js';
import { deriveKeys, loadSecret, secretBytesOf } from './crypto/secret-keys.js';
import { openWhenReachable } from './store/wait-for-store.js';
import { decoyPasswordHash } from './domain/page/sign-in.js';
import type { Services } from './services.js';
import { ensureBuiltInContent } from './seed/built-in-content.js';
import { seedDemoData } from './seed/demo-data.js';
import { type DemoMode, demoModeOf } from './domain/settings/demo-mode.js';
import { Metrics } from './observability/metrics.js';
import { type AuditListener, observedStore } from './observability/observed-store.js';
import { AuditExport } from './audit-export/audit-export.js';
import { webhookDestinations } from './webhooks/webhook-destination.js';
import { type PurgeOutcome, purgeStore, retentionRulesOf } from './domain/retention/retention.js';
import pino, { type Logger } from 'pino';
import { openStore } from './store/open-store.js';
import { auditStampKeyOf } from './domain/audit/audit-trail.js';
import { checkSecretFingerprint } from './store/secret-fingerprint.js';

export interface Started {
  services: Services;
  /** Whether this start created the demo users. */
  seededDemo: boolean;
  /** Demo mode as this start found it (domain/settings/demo-mode.ts): asked for but off says why. */
  demoMode: DemoMode;
  generatedSecret: boolean;
}

/**
 * Everything an instance needs, ready: keys, store (migrated, with the built-in content), demo
 * data when wanted, and the services the routes use.
 */
export async function startServices(
  config: Config,
  now: () => number = Date.now,
  log: Pick<Logger, 'warn' | 'info'> = pino({ level: 'silent' }),
): Promise<Started> {
  const { secret, generated } = loadSecret(config.secret, config.dataDir);
  const keys = deriveKeys(secret, secretBytesOf(config.secretPrevious));
  const metrics = new Metrics();
  const auditListeners: AuditListener[] = [];
  const store = observedStore(
    // A server started while its database is still coming up waits for it, saying why.
    await openWhenReachable(
      () =>
        openStore({
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          poolSize: config.dbPoolSize,
          timeouts: config.dbTimeouts,
          schema: config.migrate === 'on' ? 'migrate' : 'require-current',
          onMigrated: (applied) =>
            log.info(
              { migrations: applied, releases: [...new Set(applied.map(releaseOf))] },
              `schema changes applied: ${withReleases(applied)}`,
            ),
          auditStampKey: auditStampKeyOf(keys),
          preparedStatements: {
            enabled: config.dbPreparedStatements,
            onTurnedOff: (cause) =>
              log.warn(
                { cause },
                'PostgreSQL lost a prepared statement of this server (a pooler in transaction mode, PgBouncer before 1.21, or a migration by a newer version): they are off until a restart; set DEA_DB_PREPARED_STATEMENTS=off behind such a pooler',
              ),
          },
        }),
      config.dbStartWaitMs,
      log,
    ),
    metrics,
    auditListeners,
  );
  metrics.watchStore(() => store.ping());
  try {
    // Seals what any writer adds to the audit log and, with DEA_AUDIT_* and DEA_WEBHOOKS, exports
    // it (one instance at a time); a webhook configured for the first time begins after what is there.
    // The requests the server answers, which its background work (sealing, syncs) takes turns with.
    const requestTurns = new RequestTurns();
    const auditExport = new AuditExport(config.auditExport, store, keys, metrics, log, {
      holder: `${hostname()}:${process.pid}:${newId()}`,
      now,
      turn: (stepMs) => requestTurns.turn(stepMs),
      destinations: webhookDestinations(config.webhooks, store, metrics, log),
    });
    auditListeners.push(() => auditExport.notify());
    await auditExport.begin();
    const { rotated } = await checkSecretFingerprint(store, keys, true, now());
    if (rotated) {
      log.warn(
        { fingerprint: keys.fingerprint, replaced: keys.previous?.fingerprint },
        'the store now uses the new DEA_SECRET; keep the old one in DEA_SECRET_PREVIOUS on every instance until npx dea secret status says it can go',
      );
    }
    await ensureBuiltInContent(store);
    // Computed in the background: it must not delay the start.
    const decoy = decoyPasswordHash(store, config.passwordHashCost);
    // A store closed before it is done (a stop right after the start) must not end the process;
    // a sign-in awaiting it still gets the failure.
    decoy.catch(() => undefined);
    // Demo users only into an empty store (or one of demo users only), and only when asked for.
    const demoMode = await demoModeOf(config, store);
    const seededDemo = demoMode.on ? await seedDemoData(store, config.passwordHashCost, now()) : false;
    const services = composeDomain({
      config,
      store,
      keys,
      now,
      log,
      metrics,
      auditExport,
      decoyPasswordHash: () => decoy,
      requestTurns,
    });
    auditExport.start();
    return { services, seededDemo, demoMode, generatedSecret: generated };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * This instance's turn of the retention purge (domain/retention/retention.ts): skipped while another
 * instance or a `dea purge` holds the lease.
 */
export function purgeAsScheduled(
  services: Services,
  holder: string,
  signal?: AbortSignal,
): Promise<PurgeOutcome> {
  return purgeStore(
    services.store,
    retentionRulesOf(services.config, exportDestinationsOf(services.config)),
    {
      now: services.now,
      holder,
      actor: 'server',
      keys: services.keys,
      ...(signal !== undefined && { signal }),
    },
  );
}
