import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Users, groups, memberships, channels and console accounts are written to the store only by the
 * identity module (this folder), whatever the door; the store itself and the demo seeding aside.
 * Read from the sources (tests left out): every call of a writing method of these repositories on
 * a store (`store.`, `tx.`, `trx.`, `this.deps.store.`...) outside this folder is a finding.
 */
const SRC = fileURLToPath(new URL('../../', import.meta.url));

/** Where writes are the module's own business: the store, the demo seeding, tests' helpers, identity. */
const ALLOWED = ['store/', 'seed/', 'testing/', 'domain/identity/'];
/** The store observed for the metrics: a view of the store passing each write through, writing nothing itself. */
const STORE_VIEWS = ['observability/observed-store.ts'];

/**
 * Each repository of people data (its file in store/sql/, its name on the Store) and what each of
 * its methods is: a write of people data, a read, or a sign-in's state (console sessions, their
 * challenges, flows and enrolment links), which is the console's and not the account.
 */
const REPOSITORIES: Record<
  string,
  { file: string; writes: string[]; reads: string[]; signInState?: string[] }
> = {
  users: {
    file: 'users.ts',
    writes: ['create', 'update', 'remove', 'recordSignIn', 'replacePasswordHash'],
    reads: [
      'findById',
      'findForChange',
      'findByUsername',
      'findByUsernameWithPolicy',
      'findByExternalId',
      'list',
      'helpDeskCandidates',
      'listOfSource',
      'externalIdsOfSource',
      'listOfSourceWhere',
      'count',
      'mostCommonPasswordCost',
    ],
  },
  bulkUsers: { file: 'bulk-users.ts', writes: ['createMany'], reads: ['taken', 'known'] },
  groups: {
    file: 'groups.ts',
    writes: ['create', 'rename', 'setSource', 'addMember', 'removeMember', 'setPolicy', 'write'],
    reads: [
      'findByName',
      'findForChange',
      'list',
      'listOfSourceWhere',
      'findPolicyOfUser',
      'findPoliciesOfUser',
      'listPolicies',
      'listMembers',
      'listOfUser',
    ],
  },
  channels: {
    file: 'channels.ts',
    writes: ['set', 'setProven', 'remove'],
    reads: ['listOfUser', 'findOfUser', 'findUserIdsByAddressEnding'],
  },
  console: {
    file: 'console.ts',
    writes: [
      'createAccount',
      'updateAccount',
      'removeAccount',
      'addPasskey',
      'usePasskey',
      'removePasskeys',
      'endSessionsOf',
    ],
    reads: [
      'findAccountById',
      'findAccountByUsername',
      'listAccounts',
      'listPasskeys',
      'findPasskey',
      'findSession',
      'findEnrolmentLink',
    ],
    signInState: [
      'createSession',
      'touchSession',
      'setChallenge',
      'takeChallenge',
      'markPasskey',
      'endSession',
      'addEnrolmentLink',
      'useEnrolmentLink',
    ],
  },
  consoleOidc: {
    file: 'console-oidc.ts',
    writes: ['linkIdentity'],
    reads: ['findAccountIdOf', 'findSession'],
    signInState: ['addFlow', 'takeFlow', 'addSession', 'saveRefresh'],
  },
  consoleDirectory: {
    file: 'console-directory.ts',
    writes: ['linkAccount'],
    reads: ['findAccountIdOf', 'externalIdOf', 'rolesAtOf'],
    signInState: ['addSession', 'saveRolesAt'],
  },
  consolePasskeys: {
    file: 'console-passkeys.ts',
    writes: ['rename', 'removeKeepingOne'],
    reads: ['list', 'lastSignInOf'],
  },
};

/** The methods an interface of store/sql/<file> declares, as written at its first level. */
function methodsOf(file: string): string[] {
  const text = readFileSync(join(SRC, 'store', 'sql', file), 'utf8');
  const start = text.search(/^export interface \w+Repository \{/m);
  const body = text.slice(start, text.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(\w+)[(<]/gm)].map((match) => match[1] as string);
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') && !/\.(test|suite)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('people data has one writer, the identity module', () => {
  it('knows every method of the repositories of people data as a write, a read or a sign-in state', () => {
    for (const [name, repository] of Object.entries(REPOSITORIES)) {
      const known = [...repository.writes, ...repository.reads, ...(repository.signInState ?? [])];
      expect(methodsOf(repository.file).sort(), name).toEqual(known.sort());
    }
  });

  it('finds no write of users, groups, memberships, channels or console accounts outside it', () => {
    const calls = new RegExp(
      String.raw`\b(?:store|tx|trx)\s*\.\s*(${Object.keys(REPOSITORIES).join('|')})\s*\.\s*(\w+)\s*\(`,
      'g',
    );
    const findings: string[] = [];
    let seen = 0;
    for (const path of sourcesUnder(SRC)) {
      const file = relative(SRC, path).split('\\').join('/');
      if (ALLOWED.some((folder) => file.startsWith(folder)) || STORE_VIEWS.includes(file)) continue;
      const text = readFileSync(path, 'utf8');
      for (const [, repository, method] of text.matchAll(calls)) {
        seen += 1;
        if (REPOSITORIES[repository as string]?.writes.includes(method as string))
          findings.push(`${file}: ${repository}.${method}`);
      }
      // A repository taken out of a store, whose calls the pattern above would not see.
      const taken = new RegExp(
        String.raw`\{[^}]*\b(?:${Object.keys(REPOSITORIES).join('|')})\b[^}]*\}\s*=\s*(?:this\.)?(?:deps\.)?(?:store|tx|trx)\b`,
      );
      if (taken.test(text)) findings.push(`${file}: a repository of people data taken out of the store`);
    }
    expect(findings).toEqual([]);
    // The reads outside it are found: the pattern sees the calls it is meant to see.
    expect(seen).toBeGreaterThan(20);
  });
});
