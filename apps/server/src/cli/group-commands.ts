import { POLICY_CATEGORY_SELF_SERVICE, PolicyOptions } from '@dea/contract';
import Value from 'typebox/value';
import {
  GroupPolicies,
  POLICY_NAMES,
  type PolicyName,
  policyOptionProblem,
} from '../domain/group-policies.js';
import { GROUP_OWNERS } from '../domain/identity/group-ownership.js';
import { type GroupChanger, Groups } from '../domain/identity/groups.js';
import { resolvePolicy } from '../domain/policy.js';
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

/** An operator at the command line, as the groups module knows them. */
const OPERATOR: GroupChanger = { by: 'local', actor: 'cli' };

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

function category(values: OptionValues): string {
  const name = optionText(values, 'category') ?? POLICY_CATEGORY_SELF_SERVICE;
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
      await new Groups(store, () => context.now())
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
        const { store } = await context.open();
        const group = await new Groups(store, () => context.now())
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
        await new Groups(store, () => context.now())
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
        const renamed = await new Groups(store, () => context.now())
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
        const removed = await new Groups(store, () => context.now())
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
      usage: `set <group> [--category "${POLICY_CATEGORY_SELF_SERVICE}"] ${policyUsage} | show <group> [--category NAME] [--json]`,
      options: {
        category: { type: 'string' },
        json: { type: 'boolean' },
        ...Object.fromEntries(POLICY_NAMES.map((name) => [POLICY_FLAGS[name], { type: 'string' as const }])),
      },
      async run(values, positionals, context) {
        const action = argument(positionals, 0, 'set|show');
        if (action !== 'set' && action !== 'show')
          throw new UsageError(`unknown policy action "${action}" (set or show)`);
        const groupName = argument(positionals, 1, 'group');
        noMoreArguments(positionals, 2);
        const categoryName = category(values);
        const given = POLICY_NAMES.filter((name) => optionText(values, POLICY_FLAGS[name]) !== undefined);
        if (action === 'show' && given.length > 0)
          throw new UsageError(`--${POLICY_FLAGS[given[0] ?? 'codeLength']} belongs to policy set`);
        if (action === 'set' && values.json !== undefined)
          throw new UsageError('--json belongs to policy show');
        if (action === 'set' && given.length === 0)
          throw new UsageError(
            `nothing to set: give at least one of ${POLICY_NAMES.map((name) => `--${POLICY_FLAGS[name]}`).join(', ')}`,
          );
        const changes = Object.fromEntries(
          given.map((name) => [name, policyValue(name, optionText(values, POLICY_FLAGS[name]) ?? '')]),
        );
        const { store } = await context.open();
        const group = await findGroup(store, groupName);
        const stored = (await store.groups.listPolicies(group.id)).find(
          (policy) => policy.category === categoryName,
        )?.options;
        if (action === 'set') {
          const options = await new GroupPolicies(store, () => context.now())
            .setPolicy(group, categoryName, changes, 'cli')
            .catch((error: unknown) => asCliFailure(error));
          context.out(`Set the "${categoryName}" policy of ${group.name}: ${JSON.stringify(options)}`);
          return 0;
        }
        if (stored === undefined) {
          throw new CliFailure(
            `group ${group.name} has no "${categoryName}" policy (its members get codes disabled unless another group has one)`,
          );
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
