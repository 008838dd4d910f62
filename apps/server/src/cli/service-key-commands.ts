import { createServiceKey } from '../domain/service-keys.js';
import type { ServiceKey, Store } from '../store/store.js';
import {
  argument,
  auditChange,
  CliFailure,
  type CommandGroup,
  isoTime,
  noMoreArguments,
  UsageError,
} from './command.js';

/** What a service key may do: `verify` calls POST /dea/api/tempPass/verify; `scim` provisions users and groups at /scim/v2/. */
export const SERVICE_KEY_SCOPES = ['verify', 'scim'] as const;
const NAME = /^[A-Za-z0-9][\w .@-]{0,99}$/;

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
        if (!NAME.test(name))
          throw new UsageError(
            `<name> "${name}" must be 1 to 100 letters, digits, spaces or . _ @ - (starting with a letter or digit)`,
          );
        const scopes = [...new Set((values.scope as string[] | undefined) ?? ['verify'])];
        const unknown = scopes.find((scope) => !(SERVICE_KEY_SCOPES as readonly string[]).includes(scope));
        if (unknown !== undefined)
          throw new UsageError(`unknown scope "${unknown}" (one of ${SERVICE_KEY_SCOPES.join(', ')})`);
        const { store, keys } = await context.open();
        if ((await store.serviceKeys.list()).some((key) => key.name === name))
          throw new CliFailure(`a service key named "${name}" already exists`);
        const now = context.now();
        const { key, serviceKey } = await createServiceKey(store, keys.serviceKey, name, scopes, now);
        await auditChange(store, now, 'service_key.created', {
          details: { name, id: serviceKey.id, scopes },
        });
        context.out(key);
        context.err(
          `Created service key ${name} (${serviceKey.id}, scopes ${scopes.join(' ')}). This is the only time the key is shown: store it now.`,
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
        const now = context.now();
        if (!(await store.serviceKeys.revoke(key.id, now)))
          throw new CliFailure(`service key ${key.name} was already revoked`);
        await auditChange(store, now, 'service_key.revoked', { details: { name: key.name, id: key.id } });
        context.out(`Revoked service key ${key.name} (${key.id}).`);
        return 0;
      },
    },
  },
};
