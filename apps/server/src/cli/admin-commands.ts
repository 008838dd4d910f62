import { CONSOLE_PAGE_PATH } from '@dea/contract';
import { RuleError } from '../domain/rule-error.js';
import { hashPassword } from '../crypto/password-hash.js';
import { validFullName, validUsername } from '../domain/identity/user-fields.js';
import { CONSOLE_ROLES, type ConsoleAccount, type ConsoleRole, type Store } from '../store/store.js';
import {
  argument,
  asCliFailure,
  asUsage,
  CliFailure,
  type CliContext,
  type Command,
  type CommandGroup,
  isoTime,
  noMoreArguments,
  optionText,
  requiredOption,
  UsageError,
} from './command.js';
import { passwordOptions, readPassword, setPasswordCommand } from './user-commands.js';
import { consoleAccountNamed } from '../domain/identity/user-names.js';
import { checkedScope } from '../domain/console/console-scope.js';

/** The groups of `--scope` (repeated), checked against the role; null when none is given. */
function scopeOption(values: Record<string, unknown>, accountRole: ConsoleRole): readonly string[] | null {
  const names = (values.scope ?? []) as string[];
  if (names.length === 0) return null;
  const checked = checkedScope(accountRole, names, '--scope');
  if ('problem' in checked) throw new UsageError(checked.problem);
  return checked.scope;
}

/** A line naming the scope's groups that do not exist (yet): their members would be none. */
async function unknownGroups(store: Store, scope: readonly string[] | null): Promise<string[]> {
  const missing: string[] = [];
  for (const name of scope ?? []) if ((await store.groups.findByName(name)) === undefined) missing.push(name);
  return missing.length === 0
    ? []
    : [
        `No group is named ${missing.map((name) => `"${name}"`).join(', ')} yet: no user is in scope through it.`,
      ];
}

const scopeText = (scope: readonly string[] | null): string =>
  scope === null ? '' : `, limited to the members of ${scope.join(', ')}`;

function role(text: string): ConsoleRole {
  if (!(CONSOLE_ROLES as readonly string[]).includes(text))
    throw new UsageError(`--role must be one of ${CONSOLE_ROLES.join(', ')}, not "${text}"`);
  return text as ConsoleRole;
}

async function findAccount(store: Store, username: string): Promise<ConsoleAccount> {
  const account = await consoleAccountNamed(store, username);
  if (account === undefined) throw new CliFailure(`no console account named "${username}"`);
  return account;
}

/** The console accounts' one writer (identity/console-accounts.ts), the same the console's administrators go through. */
const accountsOf = async (context: CliContext) => (await context.domain()).consoleAccounts;

/** The account's one-time enrolment link, in the words the operator hands on with it. */
function enrolmentLinkText(
  account: ConsoleAccount,
  { url, expiresAt }: { url: string; expiresAt: number },
): string {
  return [
    `Its enrolment link, for ${account.username} alone, once, until ${isoTime(expiresAt)} (DEA_CONSOLE_ENROLMENT_LINK_HOURS); it registers its first passkey there after its password:`,
    url,
  ].join('\n');
}

/** `dea admin <command> <username>` for one account. */
function accountCommand(
  summary: string,
  change: (account: ConsoleAccount, store: Store, context: CliContext) => Promise<string>,
): Command {
  return {
    summary,
    usage: '<username>',
    options: {},
    async run(_values, positionals, context) {
      const username = argument(positionals, 0, 'username');
      noMoreArguments(positionals, 1);
      const { store } = await context.open();
      context.out(await change(await findAccount(store, username), store, context));
      return 0;
    },
  };
}

export const adminCommands: CommandGroup = {
  name: 'admin',
  summary: `accounts of the console (${CONSOLE_PAGE_PATH}): help desk, administrators, auditors; separate from users, each signing in with a password and a passkey`,
  commands: {
    add: {
      summary:
        'add a console account; the password comes from standard input or a file; prints the one-time link where it registers its first passkey',
      usage:
        '--username NAME --role admin|helpdesk|auditor [--scope GROUP]... [--display-name "FULL NAME"] (--password-stdin | --password-file FILE)',
      options: {
        username: { type: 'string' },
        role: { type: 'string' },
        scope: { type: 'string', multiple: true },
        'display-name': { type: 'string' },
        ...passwordOptions,
      },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const username = asUsage(() => validUsername(requiredOption(values, 'username')));
        const accountRole = role(requiredOption(values, 'role'));
        const scope = scopeOption(values, accountRole);
        const displayName = asUsage(() =>
          validFullName(optionText(values, 'display-name') ?? username, '--display-name'),
        );
        const password = await readPassword(values, context);
        const { store } = await context.open();
        if (await store.console.findAccountByUsername(username))
          throw new CliFailure(`a console account named "${username}" already exists`);
        // The same rule as the console's "add a console account".
        const { account, link } = await (await accountsOf(context))
          .add(
            {
              username,
              displayName,
              role: accountRole,
              scope,
              passwordHash: await hashPassword(password, context.config.passwordHashCost),
            },
            'cli',
          )
          .catch((error: unknown) => {
            throw error instanceof RuleError ? new CliFailure(error.message) : error;
          });
        context.out(`Added console account ${username} (${accountRole}${scopeText(scope)}).`);
        for (const line of await unknownGroups(store, scope)) context.out(line);
        context.out(enrolmentLinkText(account, link));
        return 0;
      },
    },
    list: {
      summary: 'list the console accounts with their role and passkeys',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const accounts = await Promise.all(
          (await store.console.listAccounts()).map(async (account) => ({
            username: account.username,
            displayName: account.displayName,
            role: account.role,
            scope: account.scope,
            disabled: account.disabled,
            passkeys: (await store.console.listPasskeys(account.id)).length,
            createdAt: isoTime(account.createdAt),
          })),
        );
        if (values.json === true) context.out(JSON.stringify(accounts, null, 2));
        else if (accounts.length === 0) context.out('No console accounts: add the first with dea admin add.');
        for (const account of values.json === true ? [] : accounts)
          context.out(
            `${account.username}  "${account.displayName}"  ${account.role}${account.scope === null ? '' : ` (scope: ${account.scope.join(', ')})`}  passkeys ${account.passkeys}${account.disabled ? '  DISABLED' : ''}`,
          );
        return 0;
      },
    },
    scope: {
      summary:
        'limit a help-desk or auditor account to the members of these groups (--group, repeated), or no longer (--none); it sees and acts on no one else from its next request',
      usage: '<username> (--group GROUP... | --none)',
      options: { group: { type: 'string', multiple: true }, none: { type: 'boolean' } },
      async run(values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        noMoreArguments(positionals, 1);
        const groups = (values.group ?? []) as string[];
        if ((groups.length === 0) === (values.none !== true))
          throw new UsageError("give the scope's groups with --group, or --none for no scope");
        const { store } = await context.open();
        const account = await findAccount(store, username);
        let scope: readonly string[] | null = null;
        if (groups.length > 0) {
          const checked = checkedScope(account.role, groups, '--group');
          if ('problem' in checked) throw new CliFailure(checked.problem);
          scope = checked.scope;
        }
        // An account whose role comes from the OpenID provider or the directory is refused, as in the console.
        await (await accountsOf(context))
          .setScope(account, scope, 'cli')
          .catch((error: unknown) => asCliFailure(error, false));
        for (const line of await unknownGroups(store, scope)) context.out(line);
        context.out(
          scope === null
            ? `Console account ${account.username} is no longer limited to groups.`
            : `Console account ${account.username} is limited to the members of ${scope.join(', ')}.`,
        );
        return 0;
      },
    },
    'set-password': setPasswordCommand(
      "set a console account's password from standard input or a file; its sessions end",
      async (username, passwordHash, store, context) => {
        const account = await findAccount(store, username);
        const { sessionsEnded } = await (await accountsOf(context)).setPassword(account, passwordHash, 'cli');
        return `Set the password of console account ${username}; ${sessionsEnded} sessions ended.`;
      },
    ),
    disable: accountCommand(
      'disable a console account; its sessions end',
      async (account, store, context) => {
        const { sessionsEnded } = await (await accountsOf(context)).setDisabled(account, true, 'cli');
        return `Disabled console account ${account.username}; ${sessionsEnded} sessions ended.`;
      },
    ),
    enable: accountCommand('enable a disabled console account', async (account, store, context) => {
      await (await accountsOf(context)).setDisabled(account, false, 'cli');
      return `Enabled console account ${account.username}.`;
    }),
    'reset-passkeys': accountCommand(
      "remove a console account's passkeys (a lost device); its sessions end; prints the one-time link where it registers a new one",
      async (account, store, context) => {
        const { removed, sessionsEnded, link } = await (await accountsOf(context)).resetPasskeys(
          account,
          'cli',
        );
        return `Removed ${removed} passkeys of console account ${account.username}; ${sessionsEnded} sessions ended.\n${enrolmentLinkText(account, link)}`;
      },
    ),
    remove: accountCommand(
      'remove a console account with its passkeys and sessions',
      async (account, store, context) => {
        await (await accountsOf(context)).remove(account, 'cli');
        return `Removed console account ${account.username}.`;
      },
    ),
  },
};
