import { CONSOLE_ENROLMENT_FRAGMENT, usernameOrThrow } from '@dea/contract';
import { HashQueue } from '../crypto/hash-queue.js';
import { sha256 } from '../crypto/keyed-hash.js';
import { hashPassword } from '../crypto/password-hash.js';
import type { ConsoleRole, Store } from '../store/store.js';
import { ConsoleAccounts } from '../domain/identity/console-accounts.js';
import {
  type DirectoryAccountProblem,
  DirectoryUnavailableError,
  type PasswordCheck,
  type SourceRef,
  type SourceUser,
} from '../domain/identity/user-directory.js';
import { type SigninThrottleSettings, SigninThrottle } from '../domain/page/signin-throttle.js';
import { ConsoleAuth } from '../domain/console/console-auth.js';
import { ConsoleDirectory, type ConsoleDirectorySource } from '../domain/console/console-directory.js';
import { ConsoleEnrolment } from '../domain/console/console-enrolment.js';
import { ConsoleOidc, ConsoleOidcRefused } from '../domain/console/console-oidc.js';
import { consoleOidcConfigOf, type OidcRoleMapping } from '../domain/console/console-oidc-settings.js';

const MINUTE = 60_000;

/** When the clock of `consoleSignInOf` starts. */
export const CONSOLE_T0 = Date.UTC(2026, 11, 7, 9);

/** The password of every local account `addLocal` makes unless told another. */
export const CONSOLE_PASSWORD = 'a console password';

/** A person of the in-memory directory. */
export interface DirectoryPerson {
  password: string;
  externalId: string;
  fullName: string;
  /** Normalized DNs of every group they are in. */
  groups: string[];
  disabled?: boolean;
  problem?: DirectoryAccountProblem;
}

/**
 * The directory as the console's sign-in asks it, in memory (the LDAP directory itself is tested
 * against slapd in directory/): its people by name, whether it answers, and what it was asked.
 */
export class MemoryDirectory implements ConsoleDirectorySource {
  readonly people = new Map<string, DirectoryPerson>();
  answers = true;
  readonly asked = { findUser: 0, groups: 0, decoys: 0 };
  /** Readings of groups held until this many are under way at once (then all answer). */
  private held: { count: number; waiting: Array<() => void> } | undefined;

  /** Holds each reading of groups until `count` of them are under way: readers at once, for sure. */
  holdGroupReadings(count: number): void {
    this.held = { count, waiting: [] };
  }

  async findUser(name: string): Promise<SourceUser | undefined> {
    this.reachable();
    this.asked.findUser += 1;
    const username = name.toLowerCase();
    const person = this.people.get(username);
    if (person === undefined) return undefined;
    return {
      ref: username as SourceRef,
      externalId: person.externalId,
      username,
      fullName: person.fullName,
      locale: undefined,
      timeZone: undefined,
      disabled: person.disabled ?? false,
      channels: {},
      groups: [],
    };
  }

  async passwordCheck(ref: SourceRef, password: string): Promise<PasswordCheck> {
    this.reachable();
    const person = this.people.get(ref);
    if (person?.password !== password) return { kind: 'wrong' };
    return person.problem === undefined
      ? { kind: 'right' }
      : { kind: 'account-problem', problem: person.problem };
  }

  async decoyCheck(): Promise<void> {
    this.asked.decoys += 1;
  }

  async groupDnsOf(ref: SourceRef): Promise<string[]> {
    this.reachable();
    this.asked.groups += 1;
    const held = this.held;
    if (held !== undefined) {
      const answered = new Promise<void>((resolve) => held.waiting.push(resolve));
      if (held.waiting.length >= held.count) {
        this.held = undefined;
        for (const answer of held.waiting) answer();
      }
      await answered;
    }
    return [...(this.people.get(ref)?.groups ?? [])];
  }

  private reachable(): void {
    if (!this.answers) throw new DirectoryUnavailableError('no directory server answered');
  }
}

export interface ConsoleSignInOptions {
  /** The sign-in limits; by default 50 of everything, no slow-down. */
  limits?: Partial<SigninThrottleSettings>;
  hashes?: HashQueue;
  allowedAaguids?: string[];
  /** Console roles from these directory groups, read again every `refreshMs`. */
  directory?: {
    source: ConsoleDirectorySource;
    roles: ReadonlyMap<string, OidcRoleMapping>;
    refreshMs: number;
  };
  /** Sessions signed in through the OpenID provider, on the same clock (`consoleOidcOf`). */
  oidc?: { oidc: ConsoleOidc; clock: { at: number } };
}

/**
 * The console's sign-in use cases over a test's store, wired as the composition root wires them
 * (composition.ts), on a clock the test moves (`clock.at`): sessions idle after 15 minutes, a
 * passkey fresh for 5, enrolment links valid for a day; password hashes as cheap as scrypt allows.
 */
export function consoleSignInOf(store: Store, options: ConsoleSignInOptions = {}) {
  const clock = options.oidc?.clock ?? { at: CONSOLE_T0 };
  const now = () => clock.at;
  const settings = {
    idleMs: 15 * MINUTE,
    passkeyFreshMs: 5 * MINUTE,
    consoleUrl: 'https://dea.example.org/admin/',
    enrolmentLinkMs: 24 * 60 * MINUTE,
    allowedAaguids: options.allowedAaguids ?? [],
  };
  const limits: SigninThrottleSettings = {
    userLockAfter: 50,
    addressLockAfter: 50,
    windowMs: 15 * MINUTE,
    lockMs: 15 * MINUTE,
    slowdownMs: 0,
    slowdownMaxMs: 0,
    ...options.limits,
  };
  const enrolment = new ConsoleEnrolment({ store, keys: [Buffer.alloc(32, 3)], settings, now });
  const accounts = new ConsoleAccounts({ store, enrolment, now });
  const directory =
    options.directory === undefined
      ? undefined
      : new ConsoleDirectory({
          store,
          accounts,
          source: options.directory.source,
          settings: { roles: options.directory.roles, roleRefreshMs: options.directory.refreshMs },
          now,
        });
  const auth = new ConsoleAuth({
    store,
    throttle: new SigninThrottle(store, limits, Buffer.alloc(32, 4)),
    hashQueue: options.hashes ?? new HashQueue(2, 20),
    decoyPasswordHash: () => hashPassword('no one has this password', 4),
    settings,
    enrolment,
    accounts,
    ...(directory !== undefined && { directory }),
    ...(options.oidc !== undefined && { oidc: options.oidc.oidc }),
    now,
  });
  return {
    auth,
    accounts,
    directory,
    clock,
    /** A local account (`dea admin add`) and the token of its enrolment link. */
    async addLocal(username: string, role: ConsoleRole = 'helpdesk', password = CONSOLE_PASSWORD) {
      const input = {
        username: usernameOrThrow(username),
        displayName: username,
        role,
        scope: null,
        passwordHash: password === '' ? '' : await hashPassword(password, 4),
      };
      const { account, link } = await accounts.add(input, 'cli');
      return { account, token: enrolmentTokenOf(link.url) };
    },
  };
}

/** The token at the end of an enrolment link. */
export const enrolmentTokenOf = (url: string): string => url.split(`#${CONSOLE_ENROLMENT_FRAGMENT}`)[1] ?? '';

/** Groups of the in-memory directory (normalized DNs). */
export const DIRECTORY_GROUPS = {
  staff: 'cn=staff,ou=groups,dc=example,dc=org',
  auditors: 'cn=auditors,ou=groups,dc=example,dc=org',
  vpn: 'cn=vpn,ou=groups,dc=example,dc=org',
};

/** DEA_CONSOLE_LDAP_ROLES of these tests: staff are help desk, auditors auditors limited to Finance. */
export const DIRECTORY_ROLES: ReadonlyMap<string, OidcRoleMapping> = new Map<string, OidcRoleMapping>([
  [DIRECTORY_GROUPS.staff, { role: 'helpdesk' }],
  [DIRECTORY_GROUPS.auditors, { role: 'auditor', scope: ['Finance'] }],
]);

/**
 * The console's sign-in with roles from directory groups (DEA_CONSOLE_LDAP_ROLES): staff are help
 * desk, auditors auditors limited to Finance, read again every minute; three passwords checked per
 * name and address. In the directory: alice (staff, vpn) and bob (vpn only).
 */
export function directorySignInOf(store: Store) {
  const { staff, vpn } = DIRECTORY_GROUPS;
  const source = new MemoryDirectory();
  source.people.set('alice', {
    password: 'alice pw',
    externalId: 'e-alice',
    fullName: 'Alice Archer',
    groups: [staff, vpn],
  });
  source.people.set('bob', { password: 'bob pw', externalId: 'e-bob', fullName: 'Bob', groups: [vpn] });
  const signIn = consoleSignInOf(store, {
    limits: { userLockAfter: 3 },
    directory: { source, roles: DIRECTORY_ROLES, refreshMs: 60_000 },
  });
  const { directory } = signIn;
  if (directory === undefined) throw new Error('the directory was not wired');
  return {
    ...signIn,
    directory,
    source,
    /** The password step, then the session as its next request sees it. */
    async signIn(username: string, password: string) {
      const { sessionId } = await signIn.auth.password(username, password, '198.51.100.9');
      return { sessionId, request: () => signIn.auth.caller(sessionId, undefined, false) };
    },
  };
}

export const OIDC_REDIRECT_URI = 'https://dea.example.org/dea/admin-api/oidc/callback';
export const OIDC_ADDRESS = '198.51.100.9';
export const OIDC_REFRESH_SECONDS = 300;

/** What these tests change of the console's OpenID settings. */
export interface ConsoleOidcTestSettings {
  requireMfa?: boolean;
  mfaAcrValues?: string;
  issuer?: string;
}

/** The provider as these tests drive it: testing/oidc-provider.ts, a real one in the process. */
interface Provider {
  issuer: string;
  clientId: string;
  clientSecretFile: string;
  clock: () => number;
  signIn(authorizationUrl: string, login: string): Promise<URL>;
}

/**
 * The console's sign-in with an OpenID provider over the store (ADR 0020), wired as the
 * composition root wires it, on the clock of `consoleSignInOf`, the provider's logins on the same
 * clock: dea-admins are administrators, it-helpdesk help desk, auditors auditors, helpdesk-eu help
 * desk limited to Staff EU; the role is taken again every five minutes.
 */
export function consoleOidcOf<P extends Provider>(
  store: Store,
  provider: P,
  settings: ConsoleOidcTestSettings = {},
) {
  const clock = { at: CONSOLE_T0 };
  const now = () => clock.at;
  provider.clock = now;
  const problems: string[] = [];
  const config = consoleOidcConfigOf(
    {
      DEA_CONSOLE_OIDC_ISSUER: settings.issuer ?? provider.issuer,
      DEA_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
      DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: provider.clientSecretFile,
      DEA_CONSOLE_OIDC_PROVIDER_NAME: 'Example SSO',
      DEA_CONSOLE_OIDC_SCOPES: 'openid profile email offline_access',
      DEA_CONSOLE_OIDC_ROLE_CLAIM: 'groups',
      DEA_CONSOLE_OIDC_ROLES: JSON.stringify({
        'dea-admins': 'admin',
        'it-helpdesk': 'helpdesk',
        auditors: 'auditor',
        'helpdesk-eu': { role: 'helpdesk', scope: ['Staff EU'] },
      }),
      DEA_CONSOLE_OIDC_REQUIRE_MFA: settings.requireMfa ?? true,
      DEA_CONSOLE_OIDC_MFA_ACR_VALUES: settings.mfaAcrValues ?? '',
      DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: OIDC_REFRESH_SECONDS,
    },
    problems,
  );
  if (config === undefined || problems.length > 0) throw new Error(problems.join('; '));
  const enrolment = new ConsoleEnrolment({
    store,
    keys: [Buffer.alloc(32, 3)],
    settings: { consoleUrl: 'https://dea.example.org/admin/', enrolmentLinkMs: MINUTE },
    now,
  });
  const accounts = new ConsoleAccounts({ store, enrolment, now });
  const warnings: string[] = [];
  const oidc = new ConsoleOidc({
    store,
    accounts,
    config,
    redirectUri: OIDC_REDIRECT_URI,
    sealKeys: [Buffer.alloc(32, 8)],
    now,
    warn: (message) => warnings.push(message),
  });
  type Browser = Pick<Provider, 'signIn'>;
  /** The provider's answer to a sign-in begun in a browser (a new one unless given), as it brings it back. */
  const answerOf = async (login: string, again = false, browser: Browser = provider) => {
    const { url, browserToken } = await oidc.start(OIDC_ADDRESS, again);
    const back = await browser.signIn(url, login);
    return { query: back.search, browserToken, url: new URL(url) };
  };
  return {
    oidc,
    provider,
    clock,
    accounts,
    warnings,
    answerOf,
    /** A whole sign-in of `login`: its session and account, and `current` as a request of it reads them. */
    async signIn(login: string, again = false, browser: Browser = provider) {
      const { query, browserToken } = await answerOf(login, again, browser);
      const { sessionId } = await oidc.finish(query, browserToken, OIDC_ADDRESS);
      const session = await store.console.findSession(sha256(sessionId));
      const account = await store.console.findAccountById(session?.accountId ?? '');
      if (session === undefined || account === undefined) throw new Error('no session');
      const current = async () => {
        const now = await store.console.findAccountById(account.id);
        if (now === undefined) throw new Error('no account');
        return oidc.current(session, now);
      };
      return { session, account, current };
    },
    /** Why the sign-in of `login` was refused, as the console shows it ('signed in' when it was not). */
    async refusalOf(login: string, again = false) {
      const { query, browserToken } = await answerOf(login, again);
      return oidc.finish(query, browserToken, OIDC_ADDRESS).then(
        () => 'signed in',
        (error: unknown) => (error instanceof ConsoleOidcRefused ? error.reason : 'not refused'),
      );
    },
    refusals: async () =>
      (await store.audit.list({ event: 'console.oidc_refused', limit: 100 })).map((entry) => entry.details),
  };
}
