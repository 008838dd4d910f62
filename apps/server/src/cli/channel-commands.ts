import { CHANNEL_KEYS, type ChannelKey, isChannelKey, SEND_TYPE_OF_CHANNEL } from '@dea/contract';
import { NoSuchUser } from '../domain/identity/people.js';
import type { ChangeBy } from '../domain/identity/user-ownership.js';
import { OwnershipRefused } from '../domain/identity/user-ownership.js';
import { validAddress } from '../domain/identity/user-fields.js';
import {
  argument,
  asUsage,
  CliFailure,
  type CommandGroup,
  findUser,
  noMoreArguments,
  UsageError,
} from './command.js';

function channelKey(value: string): ChannelKey {
  if (!isChannelKey(value))
    throw new UsageError(`unknown channel key "${value}" (one of ${CHANNEL_KEYS.join(', ')})`);
  return value;
}

const checkAddress = (key: ChannelKey, address: string): string => asUsage(() => validAddress(key, address));

/** An operator's change of a person's channels, audited with the actor `cli`. */
const BY_CLI: ChangeBy = { door: 'local', actor: 'cli' };

/** A person whose channels another source owns, or who was removed meanwhile: exit 1, naming why. */
function refused(error: unknown): never {
  if (error instanceof OwnershipRefused) throw new CliFailure(error.message);
  if (error instanceof NoSuchUser) throw new CliFailure('the user was removed meanwhile');
  throw error;
}

export const channelCommands: CommandGroup = {
  name: 'channel',
  summary: "a user's channels: where codes are sent (keys: " + CHANNEL_KEYS.join(', ') + ')',
  commands: {
    set: {
      summary: "set (add or replace) the user's channel of that key",
      usage: '<username> <key> <address>',
      options: {},
      async run(_values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        const key = channelKey(argument(positionals, 1, 'key'));
        const address = checkAddress(key, argument(positionals, 2, 'address'));
        noMoreArguments(positionals, 3);
        const { store } = await context.open();
        const user = await findUser(store, username);
        const { channels, channelProofs } = await context.domain();
        // Through the identity module: who owns the person's channels, one transaction, audited.
        const { channel, changed } = await channels.set(BY_CLI, user.id, key, address).catch(refused);
        // Their other channels are told at once, with the link that undoes it.
        if (changed && channel !== undefined) await channelProofs.announce(user, channel);
        context.out(`Set ${key} of ${username} to ${address}.`);
        return 0;
      },
    },
    remove: {
      summary: "remove the user's channel of that key",
      usage: '<username> <key>',
      options: {},
      async run(_values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        const key = channelKey(argument(positionals, 1, 'key'));
        noMoreArguments(positionals, 2);
        const { store } = await context.open();
        const user = await findUser(store, username);
        const { channels } = await context.domain();
        if (!(await channels.remove(BY_CLI, user.id, key).catch(refused)).changed)
          throw new CliFailure(`${username} has no ${key} channel`);
        context.out(`Removed ${key} of ${username}.`);
        return 0;
      },
    },
    list: {
      summary: "list the user's channels with their full addresses",
      usage: '<username> [--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        const username = argument(positionals, 0, 'username');
        noMoreArguments(positionals, 1);
        const { store } = await context.open();
        const user = await findUser(store, username);
        const channels = (await store.channels.listOfUser(user.id)).map(({ key, address, id }) => ({
          key,
          type: SEND_TYPE_OF_CHANNEL[key],
          address,
          reference: id,
        }));
        if (values.json === true) {
          context.out(JSON.stringify(channels, null, 2));
          return 0;
        }
        if (channels.length === 0) context.out(`${username} has no channels.`);
        for (const channel of channels) context.out(`${channel.key.padEnd(18)} ${channel.address}`);
        return 0;
      },
    },
  },
};
