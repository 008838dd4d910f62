import { acceptedKeys } from '../crypto/secret-keys.js';
import { openOutboxMessage } from '../delivery/outbox-provider.js';
import { type CommandGroup, positiveInteger } from './command.js';

/** The operator's view of the outbox: the messages unsealed, in full (it is the operator's own store). */
export const outboxCommands: CommandGroup = {
  name: 'outbox',
  summary: 'messages kept by the outbox provider (demos and development)',
  commands: {
    list: {
      summary: 'list the newest messages, unsealed',
      usage: '[--limit N] [--json]',
      options: {
        limit: { type: 'string', short: 'n' },
        json: { type: 'boolean' },
      },
      async run(values, _positionals, context) {
        const limit = positiveInteger(values.limit, 'limit', 20);
        const { store, keys } = await context.open();
        const messages = (await store.outbox.list(limit)).map((message) => ({
          id: message.id,
          createdAt: new Date(message.createdAt).toISOString(),
          channelType: message.channelType,
          userId: message.userId,
          ...openOutboxMessage(acceptedKeys(keys, 'seal'), message),
        }));
        if (values.json === true) {
          context.out(JSON.stringify(messages, null, 2));
          return 0;
        }
        if (messages.length === 0) context.out('The outbox is empty.');
        for (const message of messages) {
          context.out(
            `${message.createdAt}  ${message.channelType}  to ${message.recipient}  (user ${message.userId ?? '-'})`,
          );
          context.out(`  Subject: ${message.subject}`);
          for (const line of message.text.split('\n')) context.out(`  ${line}`);
          context.out('');
        }
        return 0;
      },
    },
  },
};
