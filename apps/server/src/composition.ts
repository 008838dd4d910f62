import { BUILT_IN_LANGUAGES, CONSOLE_API_BASE_PATH } from '@dea/contract';
import { fileURLToPath } from 'node:url';
import type { AuditExport } from './audit-export/audit-export.js';
import { SETTINGS, type Config } from './config.js';
import { HashQueue } from './crypto/hash-queue.js';
import { hashPassword, verifyPassword } from './crypto/password-hash.js';
import { ScryptWorkers } from './crypto/scrypt-workers.js';
import { acceptedKeys, type SecretKeys } from './crypto/secret-keys.js';
import { channelNotices } from './delivery/channel-notices.js';
import { codeDelivery } from './delivery/code-delivery.js';
import { Notices } from './delivery/notices.js';
import { outboxProvider } from './delivery/outbox-provider.js';
import { deliveryRouting } from './delivery/routing.js';
import { DirectoryUsers, directoryNamesOf } from './directory/directory-users.js';
import { type DirectoryLog, LdapDirectory } from './directory/ldap-directory.js';
import { AuditView } from './domain/audit/audit-view.js';
import type { RequestTurns } from './domain/bulkheads.js';
import { SignInBulkheads } from './domain/bulkheads.js';
import { ChannelProofs } from './domain/channels/channel-proof.js';
import { sendCode } from './domain/channels/send-code.js';
import { SendLimits } from './domain/channels/send-limits.js';
import { RetriedVerifications } from './domain/codes/retried-requests.js';
import { Verification } from './domain/codes/verification.js';
import { ConsoleAuth } from './domain/console/console-auth.js';
import { ConsoleDirectory } from './domain/console/console-directory.js';
import { ConsoleEnrolment } from './domain/console/console-enrolment.js';
import { ConsoleOidc } from './domain/console/console-oidc.js';
import { HelpDesk } from './domain/help-desk/help-desk.js';
import { PersonChannels } from './domain/identity/channels.js';
import { ConsoleAccounts } from './domain/identity/console-accounts.js';
import { Groups } from './domain/identity/groups.js';
import { PasswordLinks } from './domain/identity/password-links.js';
import { PeopleAdministration } from './domain/identity/people-administration.js';
import { People } from './domain/identity/people.js';
import { UserProvisioning } from './domain/identity/provision-user.js';
import { RememberedDevices } from './domain/page/remembered-devices.js';
import { Sessions } from './domain/page/sessions.js';
import { SignIn } from './domain/page/sign-in.js';
import { SigninThrottle } from './domain/page/signin-throttle.js';
import { GroupPolicies } from './domain/policies/group-policies.js';
import { RegistrationOidc } from './domain/registration/registration-oidc.js';
import { RegistrationSignIn } from './domain/registration/registration-sign-in.js';
import { UserPasskeys } from './domain/registration/user-passkeys.js';
import { Administration } from './domain/settings/administration.js';
import { Catalogs } from './domain/texts/catalogs.js';
import { BUILT_IN_CATALOGS } from './i18n/built-in-catalogs.js';
import type { Metrics } from './observability/metrics.js';
import type { Logger } from 'pino';
import { ScimGroups } from './scim/scim-groups.js';
import { ScimUsers } from './scim/scim-users.js';
import type { Services } from './services.js';
import type { Store } from './store/store.js';

export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** What the domain is built from: the settings, the store, the keys and the clock, and a few of the process's own. */
export interface DomainParts {
  config: Config;
  store: Store;
  keys: SecretKeys;
  now: () => number;
  /** Where the directory and the OpenID providers say what goes wrong. */
  log: Pick<Logger, 'warn' | 'info'>;
  metrics: Metrics;
  /** The server's sealing and export of the audit trail; the command line has none. */
  auditExport: AuditExport | undefined;
  /** The requests this process answers (none in `dea`), which its background work takes turns with. */
  requestTurns: RequestTurns;
  /**
   * The hash a sign-in of no one checks against, as costly as a real one (sign-in.ts): the
   * server computes it as it starts; the command line, which signs no one in, never asks.
   */
  decoyPasswordHash: () => Promise<string>;
}

/**
 * The identity module's use cases (domain/identity/), each built here once: users, groups and
 * their policies, channels, the provisioning of users from outside, the directory as their
 * source, console accounts and their enrolment links, password links. Every door and every
 * other use case is given these; none constructs them.
 */
export interface Identity {
  people: People;
  groups: Groups;
  groupPolicies: GroupPolicies;
  channels: PersonChannels;
  provisioning: UserProvisioning;
  directoryUsers: DirectoryUsers | undefined;
  consoleAccounts: ConsoleAccounts;
  consoleEnrolment: ConsoleEnrolment;
  passwordLinks: PasswordLinks;
}

function composeIdentity(parts: {
  config: Config;
  store: Store;
  keys: SecretKeys;
  now: () => number;
  log: DirectoryLog;
  hashQueue: HashQueue;
  requestTurns: RequestTurns;
}): Identity {
  const { config, store, keys, now, log, requestTurns } = parts;
  // The directory, when DEA_LDAP_URL names one: the names it has are its own (people.ts).
  const directory =
    config.directory === undefined ? undefined : new LdapDirectory(config.directory, now, log);
  const people = new People(store, now, directory === undefined ? null : directoryNamesOf(directory));
  const groups = new Groups(store, now);
  const channels = new PersonChannels(store, now);
  const provisioning = new UserProvisioning(store, now, { people, groups, channels });
  const consoleEnrolment = new ConsoleEnrolment({
    store,
    keys: acceptedKeys(keys, 'consoleEnrolment'),
    settings: config.console,
    now,
  });
  return {
    people,
    groups,
    groupPolicies: new GroupPolicies(store, groups),
    channels,
    provisioning,
    directoryUsers:
      directory === undefined || config.directory === undefined
        ? undefined
        : new DirectoryUsers(directory, config.directory, store, provisioning, {
            now,
            batchSize: config.provisioning.batchSize,
            turn: (stepMs) => requestTurns.turn(stepMs),
          }),
    consoleAccounts: new ConsoleAccounts({ store, enrolment: consoleEnrolment, now }),
    consoleEnrolment,
    // The one-time links to set a password, through People.
    passwordLinks: new PasswordLinks({
      store,
      people,
      keys: acceptedKeys(keys, 'consoleEnrolment'),
      linkMs: config.passwordLinkMs,
      loginUrl: new URL(config.loginPath, config.console.consoleUrl).href,
      hashPassword: (password) =>
        parts.hashQueue.tryRun((derive) => hashPassword(password, config.passwordHashCost, derive)),
      now,
    }),
  };
}

/**
 * The one composition root: every use case of the domain built from the settings, the store, the
 * keys and the clock, and the adapters wired to the domain's ports, for the server (bootstrap.ts,
 * which opens the store and adds what only a running server has) and the command line
 * (cli/run.ts, `CliContext.open`) alike. Doors (routes, the CLI, RADIUS, SCIM, the sync) receive
 * these use cases and never construct them.
 */
export function composeDomain(parts: DomainParts): Services {
  const { config, store, keys, now, log, metrics, auditExport, decoyPasswordHash, requestTurns } = parts;
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
  // One bound on password hashes for everything that makes them: sign-ins and SCIM's passwords.
  // The hashes run on threads of their own, as many as may run at once, made when first needed
  // and ended with the services (`hashThreads`, closed by the app).
  const hashWorkers = new ScryptWorkers(config.passwordHashing.concurrency);
  const hashQueue = new HashQueue(
    config.passwordHashing.concurrency,
    config.passwordHashing.queue,
    hashWorkers.derive,
  );
  const identity = composeIdentity({ config, store, keys, now, log, hashQueue, requestTurns });
  const { directoryUsers, people, groups, consoleAccounts, passwordLinks } = identity;
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
  // Browsers remembered for codes on screen, their cookies' hashes under the service keys.
  const rememberedDevices = new RememberedDevices({ store, hashKeys: acceptedKeys(keys, 'codeHash'), now });
  // How a code goes out by the routing in use: one for the page, the help desk, proofs and registration.
  const sentCodes = codeDelivery({
    route: (type) => services.delivery(type),
    catalogs,
    attempt: config.delivery.attempt,
  });
  const services: Services = {
    config: { ...config, webDir: config.webDir === '' ? DEFAULT_WEB_DIR : config.webDir },
    ...identity,
    store,
    metrics,
    keys,
    catalogs,
    sessions,
    hashQueue,
    hashThreads: hashWorkers,
    signInBulkheads,
    requestTurns,
    signIn: new SignIn({
      store: signInBulkheads.store,
      bulkheads: signInBulkheads,
      // Its stamps on the user go through People, within sign-in's share of the connections.
      people: people.within(signInBulkheads.store),
      throttle,
      sessions,
      hashQueue,
      decoyPasswordHash,
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
      decoyPasswordHash,
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
      enrolment: identity.consoleEnrolment,
      accounts: consoleAccounts,
      now,
    }),
    scim: {
      users: new ScimUsers(
        store,
        identity.provisioning,
        {
          hash: (password) =>
            hashQueue.tryRun((derive) => hashPassword(password, config.passwordHashCost, derive)),
          matches: (password, stored) =>
            hashQueue.tryRun((derive) => verifyPassword(password, stored, derive)),
        },
        now,
      ),
      groups: new ScimGroups(store, groups),
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
      groups,
      groupPolicies: identity.groupPolicies,
      now,
    }),
    // The services are complete by the time an agent proves a channel.
    peopleAdministration: new PeopleAdministration({
      store,
      people,
      groups,
      passwordLinks,
      get channelProofs() {
        return services.channelProofs;
      },
      now,
    }),
    // The services are complete by the time an agent sends a code.
    helpDesk: new HelpDesk(store, people, verification, config.codeDefaults, keys.codeHash, now, (request) =>
      sendCode(services, request),
    ),
    delivery,
    codeDelivery: sentCodes,
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
      codeDelivery: sentCodes,
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
      channels: identity.channels,
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
      codeDelivery: sentCodes,
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
  return services;
}
