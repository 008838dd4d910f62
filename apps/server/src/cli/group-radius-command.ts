import {
  formatPasswordAndCode,
  parsePasswordAndCode,
  RADIUS_POLICY_CATEGORY,
  radiusPolicyOf,
} from '../radius/radius-policy.js';
import { checkReplyAttributes } from '../radius/reply-attributes.js';
import {
  argument,
  asCliFailure,
  type Command,
  findGroup,
  noMoreArguments,
  optionText,
  UsageError,
} from './command.js';

/**
 * `dea group radius set|show|clear <group>`: for the group's members (the highest-priority group
 * with a RADIUS policy decides), the attributes an Access-Accept carries, by dictionary name, and
 * whether User-Password holds the password and the code together.
 */
export const groupRadiusCommand: Command = {
  summary:
    'set, show or clear what RADIUS does for the members: the attributes an Access-Accept carries (Filter-Id, Class, Session-Timeout, vendor attributes by name) and whether the password comes with the code',
  usage:
    'set <group> [--attribute NAME=VALUE ...] [--password-and-code off|concatenated|separator:<text>] | show <group> [--json] | clear <group>',
  options: {
    attribute: { type: 'string', multiple: true },
    'password-and-code': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values, positionals, context) {
    const action = argument(positionals, 0, 'set|show|clear');
    if (action !== 'set' && action !== 'show' && action !== 'clear')
      throw new UsageError(`unknown radius action "${action}" (set, show or clear)`);
    const groupName = argument(positionals, 1, 'group');
    noMoreArguments(positionals, 2);
    const lines = (values.attribute ?? []) as string[];
    const modeText = optionText(values, 'password-and-code');
    if (action !== 'set' && (lines.length > 0 || modeText !== undefined))
      throw new UsageError('--attribute and --password-and-code belong to radius set');
    if (action === 'set' && lines.length === 0 && modeText === undefined)
      throw new UsageError(
        'nothing to set: give --attribute NAME=VALUE or --password-and-code (radius clear removes all)',
      );
    const { attributes, problems } = checkReplyAttributes(context.config.radius.dictionary, lines);
    const mode = modeText === undefined ? undefined : parsePasswordAndCode(modeText);
    if (typeof mode === 'string') throw new UsageError(mode);
    const [problem] = problems;
    if (problem !== undefined) throw new UsageError(problem);

    const { store } = await context.open();
    const group = await findGroup(store, groupName);
    const stored = radiusPolicyOf(
      (await store.groups.listPolicies(group.id)).find((policy) => policy.category === RADIUS_POLICY_CATEGORY)
        ?.options,
    );
    if (action === 'show') {
      if (values.json === true) {
        context.out(
          JSON.stringify(
            {
              group: group.name,
              replyAttributes: stored.replyAttributes,
              passwordAndCode: formatPasswordAndCode(stored.passwordAndCode),
            },
            null,
            2,
          ),
        );
        return 0;
      }
      context.out(
        `${group.name}: User-Password holds ${describeMode(formatPasswordAndCode(stored.passwordAndCode))}.`,
      );
      if (stored.replyAttributes.length === 0)
        context.out('An Access-Accept carries no attributes of this group.');
      else context.out('An Access-Accept carries:');
      for (const [name, value] of stored.replyAttributes) context.out(`  ${name} = ${value}`);
      return 0;
    }
    const options =
      action === 'clear'
        ? { replyAttributes: [], passwordAndCode: 'off' }
        : {
            replyAttributes: lines.length > 0 ? attributes : stored.replyAttributes,
            passwordAndCode: formatPasswordAndCode(mode ?? stored.passwordAndCode),
          };
    // Through the groups module: the policy and its audit entry in one transaction.
    await (await context.domain()).groups
      .setPolicy(
        group,
        { category: RADIUS_POLICY_CATEGORY, options, changes: options },
        { door: 'local', actor: 'cli' },
        false,
      )
      .catch((error: unknown) => asCliFailure(error));
    const carried = options.replyAttributes.map(([name, value]) => `${name} = ${value}`).join(', ');
    context.out(
      `${group.name}: User-Password holds ${describeMode(options.passwordAndCode)}; an Access-Accept carries ${carried === '' ? 'no attributes' : carried}.`,
    );
    return 0;
  },
};

function describeMode(mode: string): string {
  if (mode === 'concatenated') return 'the password directly followed by the code';
  if (mode.startsWith('separator:'))
    return `the password, "${mode.slice('separator:'.length)}", then the code`;
  return 'the code alone';
}
