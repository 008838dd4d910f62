import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_SELF_SERVICE,
  PolicyOptions,
  SEND_TYPES,
} from '@dea/contract';
import Value from 'typebox/value';
import {
  effectiveRegistrationOptions,
  POLICY_NAMES,
  type PolicyName,
  policyOptionProblem,
  REGISTRATION_OPTION_NAMES,
  type RegistrationOptionName,
  registrationOptionProblem,
} from '../domain/policies/group-policies.js';
import { GROUP_OWNERS } from '../domain/identity/group-ownership.js';
import type { ChangeBy } from '../domain/identity/user-ownership.js';
import { resolvePolicy } from '../domain/policies/policy.js';
import { groupRadiusCommand } from './group-radius-command.js';
import {
  argument,
  asCliFailure,
  CliFailure,
  type Command,
  type CommandGroup,
  findGroup,
  findUser,
  noMoreArguments,
  optionText,
  type OptionValues,
  requiredOption,
  UsageError,
} from './command.js';

/** The command-line option of each policy option. */
const POLICY_FLAGS: Readonly<Record<PolicyName, string>> = {
  enableECode: 'enable-ecode',
  emergencyCodeDelivery: 'delivery',
  codeLength: 'code-length',
  codeAlphabet: 'code-alphabet',
  codeValidityMinutes: 'code-validity-minutes',
  codeUses: 'code-uses',
  maxUnusedCodes: 'max-unused-codes',
};

/** The command-line option of each "Channel Registration" option. */
const REGISTRATION_FLAGS: Readonly<Record<RegistrationOptionName, string>> = {
  registrationCoolingHours: 'registration-cooling-hours',
  registrationChannelTypes: 'registration-channel-types',
  registrationMaxChannels: 'registration-max-channels',
  reproveAfterDays: 'reprove-after-days',
  screenCodeTrustedNetworks: 'screen-code-trusted-networks',
  screenCodeRememberedDeviceDays: 'screen-code-remembered-device-days',
};

/**
 * A "Channel Registration" option's value from its text (the send types or the address ranges
 * comma-separated, nothing for none), checked by the rule the console's policy screen uses too.
 */
function registrationValue(name: RegistrationOptionName, text: string): unknown {
  const value =
    name === 'registrationChannelTypes' || name === 'screenCodeTrustedNetworks'
      ? text
          .split(',')
          .map((type) => type.trim())
          .filter((type) => type !== '')
      : /^\d+$/.test(text)
        ? Number(text)
        : NaN;
  const problem = registrationOptionProblem(name, value);
  if (problem !== undefined) throw new UsageError(`--${REGISTRATION_FLAGS[name]}: ${problem}`);
  return value;
}

/** An operator at the command line, as the groups module knows them. */
const OPERATOR: ChangeBy = { door: 'local', actor: 'cli' };

/** One option's value from its text, checked by the rule the console uses too. */
function policyValue(name: PolicyName, text: string): unknown {
  const schema = PolicyOptions.properties[name] as { type?: string };
  const value =
    schema.type === 'boolean'
      ? text === 'true'
        ? true
        : text === 'false'
          ? false
          : text
      : schema.type === 'integer'
        ? /^\d+$/.test(text)
          ? Number(text)
          : NaN
        : text;
  const problem = policyOptionProblem(name, value);
  if (problem !== undefined) throw new UsageError(`--${POLICY_FLAGS[name]} ${problem}`);
  return value;
}

function category(values: OptionValues, registration: boolean): string {
  const name =
    optionText(values, 'category') ??
    (registration ? POLICY_CATEGORY_CHANNEL_REGISTRATION : POLICY_CATEGORY_SELF_SERVICE);
  if (name.trim() === '' || name.length > 100) throw new UsageError('--category must be 1 to 100 characters');
  return name;
}

function membershipCommand(adding: boolean): Command {
  return {
    summary: adding ? 'put a user into the group' : 'take a user out of the group',
    usage: '<group> <username>',
    options: {},
    async run(_values, positionals, context) {
      const groupName = argument(positionals, 0, 'group');
      const username = argument(positionals, 1, 'username');
      noMoreArguments(positionals, 2);
      const { store } = await context.open();
      const group = await findGroup(store, groupName);
      const user = await findUser(store, username);
      const isMember = (await store.groups.listMembers(group.id)).includes(user.id);
      if (adding && isMember) throw new CliFailure(`${username} is already in group ${groupName}`);
      if (!adding && !isMember) throw new CliFailure(`${username} is not in group ${groupName}`);
      // The rule of every membership: owned, audited, and codes revoked when this switches them off.
      await (await context.domain()).groups
        .changeMember(group, user.id, adding, OPERATOR)
        .catch((error: unknown) => asCliFailure(error));
      context.out(adding ? `Added ${username} to ${groupName}.` : `Removed ${username} from ${groupName}.`);
      return 0;
    },
  };
}

const policyUsage = POLICY_NAMES.map(
  (name) =>
    `[--${POLICY_FLAGS[name]} ${name === 'enableECode' ? 'true|false' : name === 'emergencyCodeDelivery' ? 'Channel|Display' : name === 'codeAlphabet' ? 'CHARS' : 'N'}]`,
).join(' ');

const registrationUsage = REGISTRATION_OPTION_NAMES.map(
  (name) =>
    `[--${REGISTRATION_FLAGS[name]} ${name === 'registrationChannelTypes' ? SEND_TYPES.join(',') : 'N'}]`,
).join(' ');

export const groupCommands: CommandGroup = {
  name: 'group',
  summary: 'groups of users and their policies (a user gets the policy of their highest-priority group)',
  commands: {
    add: {
      summary: 'add a group; with several groups, the higher priority wins',
      usage: '--name NAME [--priority N]',
      options: { name: { type: 'string' }, priority: { type: 'string' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        // The name's rules are the groups module's, as for every door.
        const name = requiredOption(values, 'name');
        const priorityText = optionText(values, 'priority') ?? '0';
        const priority = /^-?\d{1,7}$/.test(priorityText) ? Number(priorityText) : NaN;
        if (Number.isNaN(priority))
          throw new UsageError('--priority must be a whole number from -9999999 to 9999999');
        const group = await (await context.domain()).groups
          .create({ name, priority }, OPERATOR)
          .catch((error: unknown) => asCliFailure(error));
        context.out(`Added group ${group.name} (priority ${priority}).`);
        return 0;
      },
    },
    list: {
      summary: 'list the groups, highest priority first, with their members',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const usernames = new Map((await store.users.list()).map((user) => [user.id, user.username]));
        const groups = [];
        for (const group of await store.groups.list()) {
          const members = (await store.groups.listMembers(group.id)).map((id) => usernames.get(id) ?? id);
          const categories = (await store.groups.listPolicies(group.id)).map((policy) => policy.category);
          groups.push({
            name: group.name,
            priority: group.priority,
            owner: group.source,
            members: members.sort(),
            categories,
          });
        }
        if (values.json === true) {
          context.out(JSON.stringify(groups, null, 2));
          return 0;
        }
        if (groups.length === 0) context.out('No groups.');
        for (const group of groups) {
          context.out(
            `${group.name}  priority ${group.priority}  owner ${group.owner}  members ${group.members.join(', ') || '-'}  policies ${group.categories.join(', ') || '-'}`,
          );
        }
        return 0;
      },
    },
    owner: {
      summary: 'hand a group to SCIM (it may then rename it and set its SCIM members) or take it back',
      usage: `<group> ${GROUP_OWNERS.join('|')}`,
      options: {},
      async run(_values, positionals, context) {
        const groupName = argument(positionals, 0, 'group');
        const owner = argument(positionals, 1, GROUP_OWNERS.join('|'));
        noMoreArguments(positionals, 2);
        const { store } = await context.open();
        const group = await findGroup(store, groupName);
        await (await context.domain()).groups
          .setOwner(group, owner, OPERATOR)
          .catch((error: unknown) => asCliFailure(error));
        context.out(`Group ${group.name} is owned by ${owner}.`);
        return 0;
      },
    },
    rename: {
      summary: "rename a group (an operator's; SCIM renames the groups it owns)",
      usage: '<group> <new name>',
      options: {},
      async run(_values, positionals, context) {
        const groupName = argument(positionals, 0, 'group');
        const newName = argument(positionals, 1, 'new name');
        noMoreArguments(positionals, 2);
        const { store } = await context.open();
        const group = await findGroup(store, groupName);
        const renamed = await (await context.domain()).groups
          .rename(group, newName, OPERATOR)
          .catch((error: unknown) => asCliFailure(error));
        context.out(`Renamed group ${group.name} to ${renamed.name}.`);
        return 0;
      },
    },
    remove: {
      summary: 'remove a group with its policies and memberships',
      usage: '<group>',
      options: {},
      async run(_values, positionals, context) {
        const groupName = argument(positionals, 0, 'group');
        noMoreArguments(positionals, 1);
        const { store } = await context.open();
        const group = await findGroup(store, groupName);
        const removed = await (await context.domain()).groups
          .remove(group, OPERATOR)
          .catch((error: unknown) => asCliFailure(error, false));
        if (!removed) throw new CliFailure(`group ${group.name} was removed meanwhile`);
        context.out(`Removed group ${group.name}.`);
        return 0;
      },
    },
    radius: groupRadiusCommand,
    'add-member': membershipCommand(true),
    'remove-member': membershipCommand(false),
    policy: {
      summary: "set or show the group's policy of a category: dea group policy set|show <group> ...",
      usage: `set <group> [--category "${POLICY_CATEGORY_SELF_SERVICE}"] ${policyUsage} | set <group> [--category "${POLICY_CATEGORY_CHANNEL_REGISTRATION}"] ${registrationUsage} | show <group> [--category NAME] [--json]`,
      options: {
        category: { type: 'string' },
        json: { type: 'boolean' },
        ...Object.fromEntries(POLICY_NAMES.map((name) => [POLICY_FLAGS[name], { type: 'string' as const }])),
        ...Object.fromEntries(
          REGISTRATION_OPTION_NAMES.map((name) => [REGISTRATION_FLAGS[name], { type: 'string' as const }]),
        ),
      },
      async run(values, positionals, context) {
        const action = argument(positionals, 0, 'set|show');
        if (action !== 'set' && action !== 'show')
          throw new UsageError(`unknown policy action "${action}" (set or show)`);
        const groupName = argument(positionals, 1, 'group');
        noMoreArguments(positionals, 2);
        const given = POLICY_NAMES.filter((name) => optionText(values, POLICY_FLAGS[name]) !== undefined);
        const givenRegistration = REGISTRATION_OPTION_NAMES.filter(
          (name) => optionText(values, REGISTRATION_FLAGS[name]) !== undefined,
        );
        const flags = [
          ...given.map((name) => POLICY_FLAGS[name]),
          ...givenRegistration.map((name) => REGISTRATION_FLAGS[name]),
        ];
        const categoryName = category(values, givenRegistration.length > 0);
        const registration = categoryName === POLICY_CATEGORY_CHANNEL_REGISTRATION;
        if (action === 'show' && flags.length > 0)
          throw new UsageError(`--${flags[0] ?? ''} belongs to policy set`);
        if (action === 'set' && values.json !== undefined)
          throw new UsageError('--json belongs to policy show');
        // Each flag belongs to its category: the emergency options to any but "Channel
        // Registration", the registration's to it alone.
        const misplaced = registration ? given[0] : givenRegistration[0];
        if (misplaced !== undefined)
          throw new UsageError(
            registration
              ? `--${POLICY_FLAGS[misplaced as PolicyName]} is not an option of the "${POLICY_CATEGORY_CHANNEL_REGISTRATION}" policy`
              : `--${REGISTRATION_FLAGS[misplaced as RegistrationOptionName]} belongs to the "${POLICY_CATEGORY_CHANNEL_REGISTRATION}" policy, not "${categoryName}"`,
          );
        if (action === 'set' && flags.length === 0)
          throw new UsageError(
            `nothing to set: give at least one of ${(registration
              ? REGISTRATION_OPTION_NAMES.map((name) => REGISTRATION_FLAGS[name])
              : POLICY_NAMES.map((name) => POLICY_FLAGS[name])
            )
              .map((flag) => `--${flag}`)
              .join(', ')}`,
          );
        const changes: Record<string, unknown> = Object.fromEntries([
          ...given.map((name): [string, unknown] => [
            name,
            policyValue(name, optionText(values, POLICY_FLAGS[name]) ?? ''),
          ]),
          ...givenRegistration.map((name): [string, unknown] => [
            name,
            registrationValue(name, optionText(values, REGISTRATION_FLAGS[name]) ?? ''),
          ]),
        ]);
        const { store } = await context.open();
        const group = await findGroup(store, groupName);
        const stored = (await store.groups.listPolicies(group.id)).find(
          (policy) => policy.category === categoryName,
        )?.options;
        if (action === 'set') {
          const options = await (await context.domain()).groupPolicies
            .setPolicy(group, categoryName, changes, 'cli')
            .catch((error: unknown) => asCliFailure(error));
          context.out(`Set the "${categoryName}" policy of ${group.name}: ${JSON.stringify(options)}`);
          return 0;
        }
        if (stored === undefined && registration) {
          throw new CliFailure(
            `group ${group.name} has no "${categoryName}" policy (its members get the defaults unless another group has one)`,
          );
        }
        if (stored === undefined) {
          throw new CliFailure(
            `group ${group.name} has no "${categoryName}" policy (its members get codes disabled unless another group has one)`,
          );
        }
        if (registration) {
          const applied = effectiveRegistrationOptions(stored);
          if (values.json === true) {
            context.out(
              JSON.stringify(
                { group: group.name, category: categoryName, stored, effective: applied },
                null,
                2,
              ),
            );
            return 0;
          }
          context.out(`Policy "${categoryName}" of ${group.name}:`);
          const width = Math.max(...REGISTRATION_OPTION_NAMES.map((name) => name.length));
          for (const name of REGISTRATION_OPTION_NAMES) {
            const note =
              stored[name] === undefined
                ? '  (default)'
                : registrationOptionProblem(name, stored[name]) === undefined
                  ? ''
                  : `  (stored ${JSON.stringify(stored[name])} is not valid: default used)`;
            const value = applied[name];
            context.out(
              `  ${name.padEnd(width)} ${Array.isArray(value) ? value.join(',') || '(none)' : String(value)}${note}`,
            );
          }
          return 0;
        }
        const effective = resolvePolicy(stored, context.config.codeDefaults);
        if (values.json === true) {
          context.out(
            JSON.stringify({ group: group.name, category: categoryName, stored, effective }, null, 2),
          );
          return 0;
        }
        context.out(`Policy "${categoryName}" of ${group.name}:`);
        for (const name of POLICY_NAMES) {
          const note =
            stored[name] === undefined
              ? '  (default)'
              : Value.Check(PolicyOptions.properties[name], stored[name])
                ? ''
                : `  (stored ${JSON.stringify(stored[name])} is not valid: default used)`;
          context.out(`  ${name.padEnd(21)} ${String(effective[name])}${note}`);
        }
        return 0;
      },
    },
  },
};
