import { CONSOLE_ENROLMENT_FRAGMENT, usernameOrThrow } from '@dea/contract';
import { HashQueue } from '../../crypto/hash-queue.js';
import { hashPassword } from '../../crypto/password-hash.js';
import type { ConsoleRole, Store } from '../../store/store.js';
import { ConsoleAccounts } from '../identity/console-accounts.js';
import {
  type DirectoryAccountProblem,
  DirectoryUnavailableError,
  type PasswordCheck,
  type SourceRef,
  type SourceUser,
} from '../identity/user-directory.js';
import { type SigninThrottleSettings, SigninThrottle } from '../page/signin-throttle.js';
import { ConsoleAuth } from './console-auth.js';
import { ConsoleDirectory, type ConsoleDirectorySource } from './console-directory.js';
import { ConsoleEnrolment } from './console-enrolment.js';
import type { OidcRoleMapping } from './console-oidc-settings.js';

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
}

/**
 * The console's sign-in use cases over a test's store, wired as the composition root wires them
 * (composition.ts), on a clock the test moves (`clock.at`): sessions idle after 15 minutes, a
 * passkey fresh for 5, enrolment links valid for a day; password hashes as cheap as scrypt allows.
 */
export function consoleSignInOf(store: Store, options: ConsoleSignInOptions = {}) {
  const clock = { at: CONSOLE_T0 };
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

/**
 * The console's sign-in with roles from directory groups (DEA_CONSOLE_LDAP_ROLES): staff are help
 * desk, auditors auditors limited to Finance, read again every minute; three passwords checked per
 * name and address. In the directory: alice (staff, vpn) and bob (vpn only).
 */
export function directorySignInOf(store: Store) {
  const { staff, auditors, vpn } = DIRECTORY_GROUPS;
  const source = new MemoryDirectory();
  source.people.set('alice', {
    password: 'alice pw',
    externalId: 'e-alice',
    fullName: 'Alice Archer',
    groups: [staff, vpn],
  });
  source.people.set('bob', { password: 'bob pw', externalId: 'e-bob', fullName: 'Bob', groups: [vpn] });
  const roles = new Map<string, OidcRoleMapping>([
    [staff, { role: 'helpdesk' }],
    [auditors, { role: 'auditor', scope: ['Finance'] }],
  ]);
  const signIn = consoleSignInOf(store, {
    limits: { userLockAfter: 3 },
    directory: { source, roles, refreshMs: 60_000 },
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
