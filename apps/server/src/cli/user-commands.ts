import { allowAddresses, maskedOf } from '../domain/channels/channel-proof.js';
import { issueRegistrationLink } from '../domain/registration/registration-sign-in.js';
import { forgetUserPasskeys } from '../domain/registration/user-passkeys.js';
import { unlinkRegistrationProvider } from '../domain/registration/registration-oidc.js';
import { newPasswordProblem, type Username } from '@dea/contract';
import { NoSuchUser, type People, ProvisionError } from '../domain/identity/people.js';
import type { ChangeBy } from '../domain/identity/user-ownership.js';
import { OwnershipRefused } from '../domain/identity/user-ownership.js';
import { acceptedKeys } from '../crypto/secret-keys.js';
import { hashPassword } from '../crypto/password-hash.js';
import { userImportCommand } from './user-import-command.js';
import { validFullName, validLocale, validTimeZone, validUsername } from '../domain/identity/user-fields.js';
import type { Store, User } from '../store/store.js';
import {
  argument,
  asUsage,
  type CliContext,
  type Command,
  CliFailure,
  type CommandGroup,
  findUser,
  isoTime,
  noMoreArguments,
  optionText,
  type OptionValues,
  requiredOption,
  UsageError,
  readOperatorSecretFile,
} from './command.js';

const checkUsername = (username: string): Username => asUsage(() => validUsername(username));

/** Every change of a user an operator makes with dea, audited with the actor `cli`. */
const BY_CLI: ChangeBy = { door: 'local', actor: 'cli' };

/** The identity module's users, as the composition root built them. */
async function peopleOf(context: CliContext): Promise<People> {
  return (await context.domain()).people;
}

/**
 * A change of the identity module, with its refusals as the CLI reports them: a name taken or
 * the directory's, a part another source owns (naming it), a user gone meanwhile (exit 1).
 */
async function changed<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof OwnershipRefused || error instanceof ProvisionError)
      throw new CliFailure(error.message);
    if (error instanceof NoSuchUser) throw new CliFailure('the user was removed meanwhile');
    throw error;
  }
}
export const checkLocale = (locale: string): string => asUsage(() => validLocale(locale, '--locale'));
const checkFullName = (fullName: string): string => asUsage(() => validFullName(fullName, '--full-name'));
/** An IANA time zone, or "default" (DEA_TIME_ZONE) as null. */
const checkTimeZone = (text: string): string | null =>
  text === 'default' ? null : asUsage(() => validTimeZone(text, '--time-zone'));

export const passwordOptions = {
  'password-stdin': { type: 'boolean' },
  'password-file': { type: 'string' },
} as const;

/** The password from standard input or a file (one line), never from the command line. */
export async function readPassword(values: OptionValues, context: CliContext): Promise<string> {
  const file = optionText(values, 'password-file');
  const fromStdin = values['password-stdin'] === true;
  if (fromStdin === (file !== undefined))
    throw new UsageError('give the password with either --password-stdin or --password-file <file>');
  let text: string;
  if (file === undefined) {
    text = await context.readStdin();
  } else {
    text = (await readOperatorSecretFile(file, 'the password file ')).toString('utf8');
  }
  const password = text.replace(/\r?\n$/, '');
  if (/[\r\n]/.test(password)) throw new UsageError('the password must be a single line');
  const problem = newPasswordProblem(password);
  if (problem !== undefined) throw new UsageError(problem);
  return password;
}

/**
 * `<group> set-password <username>`: the password from standard input or a file, hashed at the
 * configured cost, handed to `apply`, whose answer is printed.
 */
export function setPasswordCommand(
  summary: string,
  apply: (username: string, passwordHash: string, store: Store, context: CliContext) => Promise<string>,
): Command {
  return {
    summary,
    usage: '<username> (--password-stdin | --password-file FILE)',
    options: passwordOptions,
    async run(values, positionals, context) {
      const username = argument(positionals, 0, 'username');
      noMoreArguments(positionals, 1);
      const password = await readPassword(values, context);
      const { store } = await context.open();
      const passwordHash = await hashPassword(password, context.config.passwordHashCost);
      context.out(await apply(username, passwordHash, store, context));
      return 0;
    },
  };
}

async function groupNamesOfUsers(store: Store): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>();
  for (const group of await store.groups.list()) {
    for (const userId of await store.groups.listMembers(group.id)) {
      names.set(userId, [...(names.get(userId) ?? []), group.name]);
    }
  }
  return names;
}

function describe(user: User, groups: string[]) {
  return {
    id: user.id,
    username: user.username,
    fullName: user.fullName,
    locale: user.locale,
    timeZone: user.timeZone,
    disabled: user.disabled,
    source: user.source,
    groups,
    createdAt: isoTime(user.createdAt),
    lastLoginAt: user.currentLoginAt === null ? null : isoTime(user.currentLoginAt),
  };
}

/** Changes one user: `dea user disable|enable|remove|unlock <username>`. */
const signedOut = (sessions: number): string =>
  sessions === 1 ? '1 session ended' : `${sessions} sessions ended`;

function oneUserCommand(
  summary: string,
  change: (user: User, context: CliContext, store: Store) => Promise<string>,
): CommandGroup['commands'][string] {
  return {
    summary,
    usage: '<username>',
    options: {},
    async run(_values, positionals, context) {
      const username = argument(positionals, 0, 'username');
      noMoreArguments(positionals, 1);
      const { store } = await context.open();
      const user = await findUser(store, username);
      context.out(await change(user, context, store));
      return 0;
    },
  };
}

export const userCommands: CommandGroup = {
  name: 'user',
  summary: 'users who sign in and get emergency codes',
  commands: {
    add: {
      summary: 'add a user; the password comes from standard input or a file, never the command line',
      usage:
        '--username NAME --full-name "FULL NAME" [--locale en] [--time-zone Europe/Berlin] [--group GROUP] (--password-stdin | --password-file FILE)',
      options: {
        username: { type: 'string' },
        'full-name': { type: 'string' },
        locale: { type: 'string' },
        'time-zone': { type: 'string' },
        group: { type: 'string', multiple: true },
        ...passwordOptions,
      },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const username = checkUsername(requiredOption(values, 'username'));
        const fullName = checkFullName(requiredOption(values, 'full-name'));
        const locale = checkLocale(optionText(values, 'locale') ?? 'en');
        const timeZoneText = optionText(values, 'time-zone');
        const timeZone = timeZoneText === undefined ? null : checkTimeZone(timeZoneText);
        const groupNames = (values.group ?? []) as string[];
        const password = await readPassword(values, context);
        const { store } = await context.open();
        const groups = [];
        for (const name of groupNames) {
          const group = await store.groups.findByName(name);
          if (group === undefined) throw new CliFailure(`no group named "${name}"`);
          groups.push(group);
        }
        const passwordHash = await hashPassword(password, context.config.passwordHashCost);
        const {
          user: { id },
        } = await changed(async () =>
          (await peopleOf(context)).create(BY_CLI, { username, fullName, locale, timeZone, passwordHash }),
        );
        const { groups: groupChanges } = await context.domain();
        for (const group of groups)
          await groupChanges.changeMember(group, id, true, { door: 'local', actor: 'cli' });
        context.out(`Added user ${username} (${id}).`);
        return 0;
      },
    },
    update: {
      summary: "change a user's full name, locale or time zone (of times in their messages)",
      usage: '<username> [--full-name "FULL NAME"] [--locale CODE] [--time-zone Europe/Berlin|default]',
      options: {
        'full-name': { type: 'string' },
        locale: { type: 'string' },
        'time-zone': { type: 'string' },
      },
      async run(values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        noMoreArguments(positionals, 1);
        const fullNameText = optionText(values, 'full-name');
        const localeText = optionText(values, 'locale');
        const timeZoneText = optionText(values, 'time-zone');
        if (fullNameText === undefined && localeText === undefined && timeZoneText === undefined)
          throw new UsageError('nothing to change: give --full-name, --locale or --time-zone');
        const changes = {
          ...(fullNameText !== undefined && { fullName: checkFullName(fullNameText) }),
          ...(localeText !== undefined && { locale: checkLocale(localeText) }),
          ...(timeZoneText !== undefined && { timeZone: checkTimeZone(timeZoneText) }),
        };
        const { store } = await context.open();
        const user = await findUser(store, username);
        await changed(async () => (await peopleOf(context)).update(BY_CLI, user.id, changes, () => changes));
        context.out(`Updated user ${username}.`);
        return 0;
      },
    },
    'set-locale': {
      summary: "set a user's language (the page's language when the browser asks for none)",
      usage: '<username> <locale>',
      options: {},
      async run(_values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        const locale = checkLocale(argument(positionals, 1, 'locale'));
        noMoreArguments(positionals, 2);
        const { store } = await context.open();
        const user = await findUser(store, username);
        await changed(async () =>
          (await peopleOf(context)).update(BY_CLI, user.id, { locale }, () => ({ locale })),
        );
        context.out(`User ${username} now has locale ${locale}.`);
        return 0;
      },
    },
    'set-password': setPasswordCommand(
      "set a user's password from standard input or a file",
      async (username, passwordHash, store, context) => {
        const user = await findUser(store, username);
        // Whoever signed in with the old password is signed out.
        const { sessionsEnded } = await changed(async () =>
          (await peopleOf(context)).setPassword(BY_CLI, user.id, passwordHash),
        );
        return `Set the password of ${username}; ${signedOut(sessionsEnded)}.`;
      },
    ),
    'password-link': {
      summary: 'a one-time link with which a user sets a new password in the login application',
      usage: '<username>',
      options: {},
      async run(_values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        noMoreArguments(positionals, 1);
        const { store } = await context.open();
        const user = await findUser(store, username);
        // The console's People screen makes the same link through the same module.
        const { passwordLinks } = await context.domain();
        const { url, expiresAt } = await changed(() => passwordLinks.issue(BY_CLI, user.id));
        context.out(
          [
            `A link for ${user.username} alone to set a new password, once, until ${isoTime(expiresAt)} (DEA_PASSWORD_LINK_HOURS):`,
            url,
          ].join('\n'),
        );
        return 0;
      },
    },
    disable: oneUserCommand(
      'disable a user: no sign-in, no codes, every verification fails',
      async (user, context) => {
        const { changed: parts, sessionsEnded } = await changed(async () =>
          (await peopleOf(context)).disable(BY_CLI, user.id),
        );
        return parts.length === 0
          ? `User ${user.username} was disabled already.`
          : `Disabled user ${user.username}; ${signedOut(sessionsEnded)}.`;
      },
    ),
    'sign-out': oneUserCommand(
      'end every session of a user (sign them out everywhere)',
      async (user, context) => {
        const { sessionsEnded } = await changed(async () =>
          (await peopleOf(context)).endSessions(BY_CLI, user.id),
        );
        return `Signed out ${user.username}: ${signedOut(sessionsEnded)}.`;
      },
    ),
    enable: oneUserCommand('enable a disabled user again', async (user, context) => {
      const { changed: parts } = await changed(async () => (await peopleOf(context)).enable(BY_CLI, user.id));
      return parts.length === 0
        ? `User ${user.username} was enabled already.`
        : `Enabled user ${user.username}.`;
    }),
    remove: oneUserCommand(
      'remove a user with their channels, codes and sessions (the audit log keeps their entries)',
      async (user, context) => {
        await changed(async () => (await peopleOf(context)).remove(BY_CLI, user.id));
        return `Removed user ${user.username}.`;
      },
    ),
    unlock: oneUserCommand(
      "end a user's lock after too many failed code verifications",
      async (user, context) => {
        const { verification } = await context.domain();
        return (await verification.unlock(user.id, 'cli', context.now()))
          ? `Unlocked ${user.username}: failed verifications forgotten.`
          : `${user.username} had no failed verifications to forget.`;
      },
    ),
    'registration-link': oneUserCommand(
      'print a one-time link with which the user opens the registration of their own channels (with their password)',
      async (user, context, store) => {
        const { keys } = await context.open();
        const { url, expiresAt } = await issueRegistrationLink(
          {
            store,
            hashKeys: acceptedKeys(keys, 'codeHash'),
            now: () => context.now(),
            config: context.config,
          },
          user,
          'cli',
        );
        return `Registration link for ${user.username} (once, until ${new Date(expiresAt).toISOString()}): ${url}`;
      },
    ),
    'forget-devices': oneUserCommand(
      "forget the user's remembered devices: no browser of theirs shows a code on screen for being one any more",
      async (user, context) => {
        const { rememberedDevices } = await context.domain();
        const count = await rememberedDevices.forgetAll(user, { actor: 'cli', clientAddress: null });
        return count === 0
          ? `${user.username} had no remembered device to forget.`
          : `Forgot ${count} remembered device${count === 1 ? '' : 's'} of ${user.username}.`;
      },
    ),
    'forget-passkeys': oneUserCommand(
      'remove every passkey the user registered for the registration of their channels (a lost or stolen authenticator)',
      async (user, context, store) => {
        const count = await forgetUserPasskeys({ store, now: () => context.now() }, user, 'cli');
        return count === 0
          ? `${user.username} had no passkeys.`
          : `Removed ${count} passkey${count === 1 ? '' : 's'} of ${user.username}.`;
      },
    ),
    'unlink-provider': oneUserCommand(
      "remove the user's link to a subject of the registration's OpenID provider (DEA_OIDC_ISSUER; an account there made anew): their next registration through it links again",
      async (user, context, store) => {
        const count = await unlinkRegistrationProvider({ store, now: () => context.now() }, user, 'cli');
        return count === 0
          ? `${user.username} had no link to the provider.`
          : `Removed the link of ${user.username} to the provider.`;
      },
    ),
    'blocked-addresses': oneUserCommand(
      'list the addresses the user may not register again since an undo ("this was not me") removed them',
      async (user, _context, store) => {
        const blocked = await store.channelProofs.listBlocked(user.id);
        if (blocked.length === 0) return `${user.username} has no blocked address.`;
        return blocked
          .map(
            (each) =>
              `${each.type}  ${each.address}  blocked ${new Date(each.blockedAt).toISOString()} by ${each.blockedBy}`,
          )
          .join('\n');
      },
    ),
    'allow-addresses': oneUserCommand(
      'allow the user to register again the addresses an undo ("this was not me") blocked, as the help desk does',
      async (user, context, store) => {
        const allowed = await allowAddresses({ store, now: () => context.now() }, user, {
          actor: 'cli',
          clientAddress: null,
        });
        return allowed.length === 0
          ? `${user.username} had no blocked address.`
          : `Allowed ${allowed.length} address${allowed.length === 1 ? '' : 'es'} of ${user.username} again: ${allowed
              .map((each) => maskedOf(each))
              .join(', ')}.`;
      },
    ),
    import: userImportCommand,
    list: {
      summary: 'list the users',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const groups = await groupNamesOfUsers(store);
        const users = (await store.users.list()).map((user) => describe(user, groups.get(user.id) ?? []));
        if (values.json === true) {
          context.out(JSON.stringify(users, null, 2));
          return 0;
        }
        if (users.length === 0) context.out('No users.');
        for (const user of users) {
          const state = user.disabled ? '  DISABLED' : '';
          const groupText = user.groups.length === 0 ? '-' : user.groups.join(', ');
          context.out(
            `${user.username}  "${user.fullName}"  locale ${user.locale ?? 'none (the page chooses)'}  time zone ${user.timeZone ?? `${context.config.timeZone} (default)`}  groups ${groupText}  from ${user.source}  last sign-in ${user.lastLoginAt ?? '-'}${state}`,
          );
        }
        return 0;
      },
    },
  },
};
