import type { Identity } from './composition.js';
import type { Administration } from './domain/settings/administration.js';
import type { PeopleAdministration } from './domain/identity/people-administration.js';
import type { SendType } from '@dea/contract';
import type { Config } from './config.js';
import type { SecretKeys } from './crypto/secret-keys.js';
import type { HashQueue } from './crypto/hash-queue.js';
import type { ScryptWorkers } from './crypto/scrypt-workers.js';
import type { Catalogs } from './domain/texts/catalogs.js';
import type { ChannelRules } from './domain/channels/channel-rules.js';
import type { SendLimits } from './domain/channels/send-limits.js';
import type { Sessions } from './domain/page/sessions.js';
import type { RequestTurns, SignInBulkheads } from './domain/bulkheads.js';
import type { SignIn } from './domain/page/sign-in.js';
import type { Verification } from './domain/codes/verification.js';
import type { RetriedVerifications } from './domain/codes/retried-requests.js';
import type { DeliveryProvider } from './delivery/delivery.js';
import type { ChannelProofs } from './domain/channels/channel-proof.js';
import type { RememberedDevices } from './domain/page/remembered-devices.js';
import type { RegistrationSignIn } from './domain/registration/registration-sign-in.js';
import type { RegistrationOidc } from './domain/registration/registration-oidc.js';
import type { UserPasskeys } from './domain/registration/user-passkeys.js';
import type { Notices } from './delivery/notices.js';
import type { CodeDelivery } from './domain/ports/code-delivery.js';
import type { Metrics } from './observability/metrics.js';
import type { Store } from './store/store.js';
import type { ScimGroups } from './scim/scim-groups.js';
import type { ScimUsers } from './scim/scim-users.js';
import type { AuditExport } from './audit-export/audit-export.js';
import type { ConsoleAuth } from './domain/console/console-auth.js';
import type { ConsoleOidc } from './domain/console/console-oidc.js';
import type { HelpDesk } from './domain/help-desk/help-desk.js';
import type { AuditView } from './domain/audit/audit-view.js';

/**
 * What every door (routes, CLI, RADIUS, the directory sync) may use: built by the one composition
 * root (composition.ts, `composeDomain`), for the server and the command line alike; the identity
 * module's use cases are `Identity`'s (people, groups, channels, provisioning, console accounts).
 */
export interface Services extends Identity {
  config: Config;
  store: Store;
  /** Prometheus metrics of this instance. */
  metrics: Metrics;
  keys: SecretKeys;
  /** The one bound on password hashes (sign-ins, SCIM); its load is what a test waits on. */
  hashQueue: HashQueue;
  /** The threads the hashes run on: ended when the app closes. */
  hashThreads: ScryptWorkers;
  catalogs: Catalogs;
  sessions: Sessions;
  /** Signs a user in with user name and password, within the limits of ADR 0008. */
  signIn: SignIn;
  /** The bounds on sign-in work: sign-ins in flight, and their share of the store's connections. */
  signInBulkheads: SignInBulkheads;
  /** The requests in flight, whose turns background work waits for (a directory sync's batches). */
  requestTurns: RequestTurns;
  /** Seals the audit trail and sends it to syslog, HTTPS, a file and the webhooks (DEA_AUDIT_*, DEA_WEBHOOKS). */
  auditExport: AuditExport | undefined;
  /** The console's sign-in: password, then passkey (WebAuthn). */
  consoleAuth: ConsoleAuth;
  /** The console's sign-in with the OpenID provider; undefined without DEA_CONSOLE_OIDC_ISSUER. */
  consoleOidc: ConsoleOidc | undefined;
  /** What the help desk does for a user who calls. */
  helpDesk: HelpDesk;
  /** The audit log for administrators and auditors. */
  auditView: AuditView;
  /** Groups, policies, service keys and settings for administrators. */
  administration: Administration;
  /** People in the console: users administered by an administrator. */
  peopleAdministration: PeopleAdministration;
  /** Users and groups pushed by an identity provider over SCIM 2.0. */
  scim: { users: ScimUsers; groups: ScimGroups };
  /** Verifies emergency codes for the API and RADIUS: failure count, lockout, single use, audit. */
  verification: Verification;
  /**
   * Around verification for the HTTP doors: a request retried with the same Idempotency-Key gets
   * the first answer (kept in the store), not a second verification. RADIUS keeps its own in memory.
   */
  retriedVerifications: RetriedVerifications;
  /** The provider of each send type; undefined when the type is switched off. */
  delivery: (type: SendType) => DeliveryProvider | undefined;
  /** Which channels may receive codes (type switched on, phone prefix allowed). */
  channelRules: ChannelRules;
  sendLimits: SendLimits;
  notices: Notices;
  /** People registering and proving their own channels (domain/channels/channel-proof.ts). */
  channelProofs: ChannelProofs;
  /** The strong sign-in that opens the registration of channels (domain/registration/registration-sign-in.ts). */
  registrationSignIn: RegistrationSignIn;
  /** Browsers remembered for codes on screen, bound to their person (domain/page/remembered-devices.ts). */
  rememberedDevices: RememberedDevices;
  /** The identity provider as a strong sign-in for registration; undefined without DEA_OIDC_ISSUER. */
  registrationOidc: RegistrationOidc | undefined;
  /** People's own passkeys: a strong sign-in for registration, managed inside one (domain/registration/user-passkeys.ts). */
  userPasskeys: UserPasskeys;
  /** Delivery of codes as the domain asks for it (domain/ports/code-delivery.ts), on `delivery`. */
  codeDelivery: CodeDelivery;
  now: () => number;
}
