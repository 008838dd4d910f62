import { auditChange, type CommandGroup, noMoreArguments } from './command.js';

export const codeCommands: CommandGroup = {
  name: 'codes',
  summary: 'emergency codes (kept only as keyed hashes)',
  commands: {
    purge: {
      summary: 'remove used, invalidated and expired codes (the server also does this every 10 minutes)',
      usage: '',
      options: {},
      async run(_values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const now = context.now();
        const removed = await store.codes.purge(now);
        await auditChange(store, now, 'codes.purged', { details: { removed } });
        context.out(`Removed ${removed} used or expired ${removed === 1 ? 'code' : 'codes'}.`);
        return 0;
      },
    },
  },
};
