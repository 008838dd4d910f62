import { releaseOf, withReleases } from './store/migrations/index.js';
import { Administration } from './domain/settings/administration.js';
import { BUILT_IN_LANGUAGES, CONSOLE_API_BASE_PATH } from '@dea/contract';
import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import { newId } from './crypto/ids.js';
import { SETTINGS, type Config, exportDestinationsOf } from './config.js';
import { HashQueue } from './crypto/hash-queue.js';
import { processScryptWorkers } from './crypto/scrypt-workers.js';
import { hashPassword, verifyPassword } from './crypto/password-hash.js';
import { ScimGroups } from './scim/scim-groups.js';
import { ScimUsers } from './scim/scim-users.js';
import { acceptedKeys, deriveKeys, loadSecret, secretBytesOf } from './crypto/secret-keys.js';
import { Catalogs } from './domain/texts/catalogs.js';
import { openWhenReachable } from './store/wait-for-store.js';
import { BUILT_IN_CATALOGS } from './i18n/built-in-catalogs.js';
import { Sessions } from './domain/page/sessions.js';
import { SendLimits } from './domain/channels/send-limits.js';
import { SignIn, decoyPasswordHash } from './domain/page/sign-in.js';
import { SigninThrottle } from './domain/page/signin-throttle.js';
import { Verification } from './domain/codes/verification.js';
import { RetriedVerifications } from './domain/codes/retried-requests.js';
import { UserProvisioning } from './domain/identity/provision-user.js';
import { DirectoryUsers } from './directory/directory-users.js';
import { LdapDirectory, type DirectoryLog } from './directory/ldap-directory.js';
import { codeDelivery } from './delivery/code-delivery.js';
import { Notices } from './delivery/notices.js';
import { channelNotices } from './delivery/channel-notices.js';
import { ChannelProofs } from './domain/channels/channel-proof.js';
import { RegistrationSignIn } from './domain/registration/registration-sign-in.js';
import { RememberedDevices } from './domain/page/remembered-devices.js';
import { RegistrationOidc } from './domain/registration/registration-oidc.js';
import { UserPasskeys } from './domain/registration/user-passkeys.js';
import { outboxProvider } from './delivery/outbox-provider.js';
import { deliveryRouting } from './delivery/routing.js';
import type { Services } from './services.js';
import { ensureBuiltInContent } from './seed/built-in-content.js';
import { seedDemoData } from './seed/demo-data.js';
import { type DemoMode, demoModeOf } from './domain/settings/demo-mode.js';
import { Metrics } from './observability/metrics.js';
import { SignInBulkheads } from './domain/bulkheads.js';
import { type AuditListener, observedStore } from './observability/observed-store.js';
import { AuditExport } from './audit-export/audit-export.js';
import { webhookDestinations } from './webhooks/webhook-destination.js';
import { ConsoleAuth } from './domain/console/console-auth.js';
import { ConsoleOidc } from './domain/console/console-oidc.js';
import { ConsoleDirectory } from './domain/console/console-directory.js';
import { ConsoleAccounts } from './domain/identity/console-accounts.js';
import { People } from './domain/identity/people.js';
import { PasswordLinks } from './domain/identity/password-links.js';
import { PeopleAdministration } from './domain/identity/people-administration.js';
import { ConsoleEnrolment } from './domain/console/console-enrolment.js';
import { HelpDesk } from './domain/help-desk/help-desk.js';
import { sendCode } from './domain/channels/send-code.js';
import { AuditView } from './domain/audit/audit-view.js';
import { type PurgeOutcome, purgeStore, retentionRulesOf } from './domain/retention/retention.js';
import pino, { type Logger } from 'pino';
import { openStore } from './store/open-store.js';
import { auditStampKeyOf } from './domain/audit/audit-trail.js';
import { checkSecretFingerprint } from './store/secret-fingerprint.js';
import type { Store } from './store/store.js';

export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

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
    const auditExport = new AuditExport(config.auditExport, store, keys, metrics, log, {
      holder: `${hostname()}:${process.pid}:${newId()}`,
      now,
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
    const sessions = new Sessions(store, acceptedKeys(keys, 'xsrf'), {
      idleMs: config.sessionIdleMs,
      absoluteMs: config.sessionAbsoluteMs,
    });
    const delivery = deliveryRouting(config.delivery, outboxProvider(store, keys.seal, now));
    const catalogs = new Catalogs(store, config.catalogCacheMs, now, {
      languages: BUILT_IN_LANGUAGES,
      messages: BUILT_IN_CATALOGS,
    });
    // Rules and notices look up services.delivery when they run, so the routing in use is the
    // one of that moment.
    const channelRules = {
      enabled: (type: Parameters<typeof delivery>[0]) => services.delivery(type) !== undefined,
      allowedPhonePrefixes: config.delivery.allowedPhonePrefixes,
    };
    const directoryUsers = directoryUsersOf(config, store, now, log);
    // Sign-in's store work holds at most its share of the connections; the rest stay for
    // verification, the page and everything else (domain/bulkheads.ts).
    const signInBulkheads = new SignInBulkheads(
      store,
      { ...config.signInBulkheads, storeWaitMs: config.dbTimeouts.connectMs },
      () => metrics.signInBusy(),
    );
    const throttle = new SigninThrottle(signInBulkheads.store, config.signin, keys.identifier);
    const verification = new Verification(
      store,
      acceptedKeys(keys, 'codeHash'),
      config.codeDefaults,
      config.verification,
    );
    // Retries of a verification asked with an Idempotency-Key get the first answer, from any instance.
    const retriedVerifications = new RetriedVerifications(
      store.verifyAnswers,
      keys.identifier,
      config.verifyIdempotencyMs,
    );
    // One bound on password hashes for everything that makes them: sign-ins and SCIM's passwords.
    // The hashes run on the process's threads, as many as may run at once (one pool per size).
    const hashWorkers = processScryptWorkers(config.passwordHashing.concurrency);
    const hashQueue = new HashQueue(
      config.passwordHashing.concurrency,
      config.passwordHashing.queue,
      hashWorkers.derive,
    );
    // The console accounts' one-time enrolment links, for their sign-in and their administrators.
    const consoleEnrolment = new ConsoleEnrolment({
      store,
      keys: acceptedKeys(keys, 'consoleEnrolment'),
      settings: config.console,
      now,
    });
    const consoleAccounts = new ConsoleAccounts({ store, enrolment: consoleEnrolment, now });
    // The console's sign-in with the organisation's OpenID provider, when DEA_CONSOLE_OIDC_ISSUER is set.
    const consoleOidc =
      config.consoleOidc === undefined
        ? undefined
        : new ConsoleOidc({
            store,
            accounts: consoleAccounts,
            config: config.consoleOidc,
            redirectUri: new URL(`${CONSOLE_API_BASE_PATH}oidc/callback`, config.console.consoleUrl).href,
            sealKeys: acceptedKeys(keys, 'seal'),
            now,
            warn: (message) => log.warn(message),
          });
    // The one identity module (ADR 0019), and the one-time links to set a password through it.
    const people = new People(store, now, directoryUsers);
    const passwordLinks = new PasswordLinks({
      store,
      people,
      keys: acceptedKeys(keys, 'consoleEnrolment'),
      linkMs: config.passwordLinkMs,
      loginUrl: new URL(config.loginPath, config.console.consoleUrl).href,
      hashPassword: (password) =>
        hashQueue.tryRun((derive) => hashPassword(password, config.passwordHashCost, derive)),
      now,
    });
    // Browsers remembered for codes on screen, their cookies' hashes under the service keys.
    const rememberedDevices = new RememberedDevices({ store, hashKeys: acceptedKeys(keys, 'codeHash'), now });
    const services: Services = {
      config: { ...config, webDir: config.webDir === '' ? DEFAULT_WEB_DIR : config.webDir },
      store,
      metrics,
      keys,
      catalogs,
      sessions,
      hashQueue,
      signInBulkheads,
      signIn: new SignIn({
        store: signInBulkheads.store,
        bulkheads: signInBulkheads,
        throttle,
        sessions,
        hashQueue,
        decoyPasswordHash: decoy,
        identifierKey: keys.identifier,
        passwordHashCost: config.passwordHashCost,
        directoryUsers,
        now,
      }),
      directoryUsers,
      auditExport,
      consoleOidc,
      consoleAuth: new ConsoleAuth({
        store,
        throttle,
        hashQueue,
        decoyPasswordHash: decoy,
        settings: config.console,
        ...(consoleOidc !== undefined && { oidc: consoleOidc }),
        // Console roles from directory groups, when DEA_CONSOLE_LDAP_ROLES maps some.
        ...(config.consoleDirectory !== undefined &&
          directoryUsers !== undefined && {
            directory: new ConsoleDirectory({
              store,
              accounts: consoleAccounts,
              source: directoryUsers.directory,
              settings: config.consoleDirectory,
              now,
            }),
          }),
        enrolment: consoleEnrolment,
        now,
      }),
      scim: {
        users: new ScimUsers(
          store,
          (over) => new UserProvisioning(over, now, directoryUsers),
          {
            hash: (password) =>
              hashQueue.tryRun((derive) => hashPassword(password, config.passwordHashCost, derive)),
            matches: (password, stored) =>
              hashQueue.tryRun((derive) => verifyPassword(password, stored, derive)),
          },
          now,
        ),
        groups: new ScimGroups(store, now),
      },
      verification,
      retriedVerifications,
      auditView: new AuditView(store),
      administration: new Administration({
        store,
        catalogs,
        codeDefaults: config.codeDefaults,
        serviceKeyHash: keys.serviceKey,
        settings: { table: SETTINGS, values: config.settingValues },
        now,
      }),
      // The services are complete by the time an agent proves a channel.
      peopleAdministration: new PeopleAdministration({
        store,
        people,
        passwordLinks,
        get channelProofs() {
          return services.channelProofs;
        },
        now,
      }),
      passwordLinks,
      consoleAccounts,
      // The services are complete by the time an agent sends a code.
      helpDesk: new HelpDesk(store, verification, config.codeDefaults, keys.codeHash, now, (request) =>
        sendCode(services, request),
      ),
      delivery,
      codeDelivery: codeDelivery({
        route: (type) => services.delivery(type),
        catalogs,
        attempt: config.delivery.attempt,
      }),
      channelRules,
      sendLimits: new SendLimits(store.rateCounters, config.sendLimits, keys.codeHash),
      notices: new Notices({
        store,
        catalogs,
        route: (type) => services.delivery(type),
        rules: channelRules,
        attempt: config.delivery.attempt,
        enabled: config.delivery.notifyOtherChannels,
        now,
      }),
      // The services are complete by the time a person proves an address.
      channelProofs: new ChannelProofs({
        store,
        hashKeys: acceptedKeys(keys, 'codeHash'),
        codeDelivery: codeDelivery({
          route: (type) => services.delivery(type),
          catalogs,
          attempt: config.delivery.attempt,
        }),
        channelRules,
        get sendLimits() {
          return services.sendLimits;
        },
        catalogs,
        channelNotices: channelNotices({
          store,
          catalogs,
          route: (type) => services.delivery(type),
          rules: channelRules,
          attempt: config.delivery.attempt,
          now,
        }),
        config,
        now,
      }),
      rememberedDevices,
      registrationOidc:
        config.registrationOidc === undefined
          ? undefined
          : new RegistrationOidc({
              store,
              hashKeys: acceptedKeys(keys, 'codeHash'),
              oidc: config.registrationOidc,
              config,
              rememberedDevices,
              now,
              warn: (message) => log.warn(message),
            }),
      registrationSignIn: new RegistrationSignIn({
        store,
        hashKeys: acceptedKeys(keys, 'codeHash'),
        codeDelivery: codeDelivery({
          route: (type) => services.delivery(type),
          catalogs,
          attempt: config.delivery.attempt,
        }),
        channelRules,
        get sendLimits() {
          return services.sendLimits;
        },
        catalogs,
        config,
        rememberedDevices,
        now,
      }),
      userPasskeys: new UserPasskeys({
        store,
        get registrationSignIn() {
          return services.registrationSignIn;
        },
        now,
      }),
      now,
    };
    auditExport.start();
    return { services, seededDemo, demoMode, generatedSecret: generated };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The organisation's directory as the source of users, when DEA_LDAP_URL names one. */
export function directoryUsersOf(
  config: Config,
  store: Store,
  now: () => number,
  log?: DirectoryLog,
): DirectoryUsers | undefined {
  if (config.directory === undefined) return undefined;
  return new DirectoryUsers(
    new LdapDirectory(config.directory, now, log),
    config.directory,
    store,
    new UserProvisioning(store, now),
    { now, batchSize: config.provisioning.batchSize },
  );
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
