import { SERVICE_KEY_SCOPES } from '@dea/contract';
import { issueServiceKey, revokeServiceKey } from '../domain/codes/service-keys.js';
import type { ServiceKey, Store } from '../store/store.js';
import {
  argument,
  asCliFailure,
  CliFailure,
  type CommandGroup,
  isoTime,
  noMoreArguments,
} from './command.js';

async function findKey(store: Store, nameOrId: string): Promise<ServiceKey> {
  const key = (await store.serviceKeys.list()).find((each) => each.name === nameOrId || each.id === nameOrId);
  if (key === undefined) throw new CliFailure(`no service key named "${nameOrId}"`);
  return key;
}

const shown = (key: ServiceKey) => ({
  id: key.id,
  name: key.name,
  scopes: key.scopes,
  createdAt: isoTime(key.createdAt),
  revokedAt: key.revokedAt === null ? null : isoTime(key.revokedAt),
});

export const serviceKeyCommands: CommandGroup = {
  name: 'service-key',
  summary:
    'keys of integrators that verify codes or provision users over SCIM (the store keeps only a keyed hash)',
  commands: {
    create: {
      summary: 'create a key and print it once: store it now, it cannot be shown again',
      usage: `<name> [--scope ${SERVICE_KEY_SCOPES.join('|')}]`,
      options: { scope: { type: 'string', multiple: true } },
      async run(values, positionals, context) {
        const name = argument(positionals, 0, 'name');
        noMoreArguments(positionals, 1);
        const scopes = (values.scope as string[] | undefined) ?? ['verify'];
        const { store, keys } = await context.open();
        const { key, serviceKey } = await issueServiceKey(
          store,
          keys.serviceKey,
          { name, scopes },
          'cli',
          context.now(),
        ).catch((error: unknown) => asCliFailure(error));
        context.out(key);
        context.err(
          `Created service key ${name} (${serviceKey.id}, scopes ${serviceKey.scopes.join(' ')}). This is the only time the key is shown: store it now.`,
        );
        return 0;
      },
    },
    list: {
      summary: 'list the keys (never their secrets)',
      usage: '[--json]',
      options: { json: { type: 'boolean' } },
      async run(values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store } = await context.open();
        const keys = (await store.serviceKeys.list()).map(shown);
        if (values.json === true) {
          context.out(JSON.stringify(keys, null, 2));
          return 0;
        }
        if (keys.length === 0) context.out('No service keys.');
        for (const key of keys) {
          const state = key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`;
          context.out(
            `${key.name}  ${key.id}  scopes ${key.scopes.join(' ')}  created ${key.createdAt}  ${state}`,
          );
        }
        return 0;
      },
    },
    revoke: {
      summary: 'revoke a key at once: every call with it is refused from now on',
      usage: '<name|id>',
      options: {},
      async run(_values, positionals, context) {
        const nameOrId = argument(positionals, 0, 'name|id');
        noMoreArguments(positionals, 1);
        const { store } = await context.open();
        const key = await findKey(store, nameOrId);
        await revokeServiceKey(store, key, 'cli', context.now()).catch((error: unknown) =>
          asCliFailure(error),
        );
        context.out(`Revoked service key ${key.name} (${key.id}).`);
        return 0;
      },
    },
  },
};
