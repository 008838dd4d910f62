import {
  checkReplyAttributes,
  RADIUS_POLICY_CATEGORY,
  storedReplyAttributes,
} from '../radius/reply-attributes.js';
import { argument, auditChange, type Command, findGroup, noMoreArguments, UsageError } from './command.js';

/**
 * `dea group radius set|show|clear <group>`: the attributes an Access-Accept carries for the
 * group's members (the highest-priority group with any decides), by dictionary name.
 */
export const groupRadiusCommand: Command = {
  summary:
    'set, show or clear the attributes an Access-Accept carries for the members (Filter-Id, Class, Session-Timeout, Reply-Message, vendor attributes by name)',
  usage:
    'set <group> --attribute NAME=VALUE [--attribute NAME=VALUE ...] | show <group> [--json] | clear <group>',
  options: { attribute: { type: 'string', multiple: true }, json: { type: 'boolean' } },
  async run(values, positionals, context) {
    const action = argument(positionals, 0, 'set|show|clear');
    if (action !== 'set' && action !== 'show' && action !== 'clear')
      throw new UsageError(`unknown radius action "${action}" (set, show or clear)`);
    const groupName = argument(positionals, 1, 'group');
    noMoreArguments(positionals, 2);
    const lines = (values.attribute ?? []) as string[];
    if (action !== 'set' && lines.length > 0) throw new UsageError('--attribute belongs to radius set');
    if (action === 'set' && lines.length === 0)
      throw new UsageError('nothing to set: give --attribute NAME=VALUE (radius clear removes them all)');
    const { attributes, problems } = checkReplyAttributes(context.config.radius.dictionary, lines);
    const [problem] = problems;
    if (problem !== undefined) throw new UsageError(problem);

    const { store } = await context.open();
    const group = await findGroup(store, groupName);
    const stored = storedReplyAttributes(
      (await store.groups.listPolicies(group.id)).find((policy) => policy.category === RADIUS_POLICY_CATEGORY)
        ?.options,
    );
    if (action === 'show') {
      if (values.json === true) {
        context.out(JSON.stringify({ group: group.name, attributes: stored }, null, 2));
      } else if (stored.length === 0) {
        context.out(`${group.name}: an Access-Accept carries no attributes of this group.`);
      } else {
        context.out(`${group.name}: an Access-Accept carries`);
        for (const [name, value] of stored) context.out(`  ${name} = ${value}`);
      }
      return 0;
    }
    const replyAttributes = action === 'set' ? attributes : [];
    await store.groups.setPolicy(group.id, RADIUS_POLICY_CATEGORY, { replyAttributes });
    await auditChange(store, context.now(), 'policy.set', {
      details: { group: group.name, category: RADIUS_POLICY_CATEGORY, options: { replyAttributes } },
    });
    context.out(
      action === 'set'
        ? `${group.name}: an Access-Accept now carries ${replyAttributes.map(([name, value]) => `${name} = ${value}`).join(', ')}.`
        : `${group.name}: an Access-Accept carries no attributes of this group now.`,
    );
    return 0;
  },
};
