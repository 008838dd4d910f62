import {
  AdminSessionsEnded,
  NoResult,
  type AdminConsoleAccount,
  AdminConsoleAccountCreate,
  AdminConsoleAccountParams,
  AdminConsoleAccounts,
  AdminConsoleRoleChange,
  AdminEnrolmentLink,
  AdminPasskeyRemove,
  AdminPasskeyRename,
  EmptyRequest,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { conflict, invalidRequest, notFound, tooManyRequests } from '../../domain/errors.js';
import { hashPassword } from '../../crypto/password-hash.js';
import { validFullName, validUsername } from '../../domain/identity/user-fields.js';
import { InvalidField } from '../../domain/identity/user-fields.js';
import type { ConsoleAccountOverview } from '../../domain/identity/console-accounts.js';
import { RuleError } from '../../domain/rule-error.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** A refusal of the accounts' rules: 404 missing, 409 another owner's or a conflict, else 400. */
function asDomainError(error: unknown): never {
  if (!(error instanceof RuleError)) throw error;
  if (error.kind === 'missing') throw notFound();
  if (error.kind === 'owned' || error.kind === 'conflict') throw conflict(error.message);
  throw invalidRequest(error.message);
}

const shown = ({ account, source, lastSignInAt, passkeys }: ConsoleAccountOverview): AdminConsoleAccount => ({
  id: account.id,
  username: account.username,
  displayName: account.displayName,
  role: account.role,
  scope: account.scope === null ? null : [...account.scope],
  disabled: account.disabled,
  source,
  lastSignInAt: iso(lastSignInAt),
  passkeys: passkeys.map((passkey) => ({
    credentialId: passkey.credentialId,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt).toISOString(),
    lastUsedAt: iso(passkey.lastUsedAt),
  })),
});

/** Console accounts administered in the console: role and scope, disable, passkeys. */
export const consoleAccountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { administration, consoleAccounts, store } = app.services;
  const action = { preValidation: emptyBodyAsObject };

  /** The administrator (the route's access) and the account the call is about. */
  async function target(request: FastifyRequest, accountId: string) {
    const actor = administration.actorOf(guardedCaller(request));
    const account = await store.console.findAccountById(accountId);
    if (account === undefined) throw notFound();
    return { actor, account };
  }

  app.get(
    '/admin/console-accounts',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'The console accounts: role, scope, how they sign in, last sign-in, passkeys',
        security: 'console',
        result: AdminConsoleAccounts,
      }),
    },
    async () => {
      const accounts = await Promise.all(
        (await store.console.listAccounts()).map(async (account) =>
          shown(await consoleAccounts.overview(account)),
        ),
      );
      return ok({ accounts });
    },
  );
  app.post(
    '/admin/console-accounts',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminConsoleAccountCreate,
        ...documented({
          summary:
            'Add a local console account; answers the one-time link where it registers its first passkey',
          security: 'console',
          result: AdminEnrolmentLink,
        }),
      },
    },
    async (request) => {
      const actor = administration.actorOf(guardedCaller(request));
      const { body } = request;
      let username;
      let displayName;
      try {
        username = validUsername(body.username);
        displayName = validFullName(body.displayName ?? body.username, 'display name');
      } catch (error) {
        if (error instanceof InvalidField) throw invalidRequest(error.message);
        throw error;
      }
      const { config, hashQueue } = app.services;
      const hashing = hashQueue.tryRun((derive) =>
        hashPassword(body.password, config.passwordHashCost, derive),
      );
      if (hashing === undefined) throw tooManyRequests(1);
      const { link } = await consoleAccounts
        .add(
          { username, displayName, role: body.role, scope: body.scope, passwordHash: await hashing },
          actor,
        )
        .catch(asDomainError);
      return ok({ url: link.url, expiresAt: new Date(link.expiresAt).toISOString(), removed: 0 });
    },
  );
  app.post(
    '/admin/console-accounts/:accountId/role',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminConsoleAccountParams,
        body: AdminConsoleRoleChange,
        ...documented({
          summary: "Change a local account's role and scope (409 for one whose role comes from groups)",
          security: 'console',
          result: NoResult,
        }),
      },
    },
    async (request) => {
      const { actor, account } = await target(request, request.params.accountId);
      await consoleAccounts
        .setRole(account, request.body.role, request.body.scope, actor)
        .catch(asDomainError);
      return ok({});
    },
  );
  for (const [path, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/admin/console-accounts/:accountId/${path}`,
      {
        config: { console: CONSOLE_ACCESS.administer },
        ...action,
        schema: {
          params: AdminConsoleAccountParams,
          body: EmptyRequest,
          ...documented({
            summary: disabled ? 'Disable a console account; its sessions end' : 'Enable a console account',
            security: 'console',
            result: AdminSessionsEnded,
          }),
        },
      },
      async (request) => {
        const { actor, account } = await target(request, request.params.accountId);
        return ok(await consoleAccounts.setDisabled(account, disabled, actor).catch(asDomainError));
      },
    );
  }
  app.post(
    '/admin/console-accounts/:accountId/passkeys/name',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminConsoleAccountParams,
        body: AdminPasskeyRename,
        ...documented({
          summary: 'Name a passkey of the account',
          security: 'console',
          result: NoResult,
        }),
      },
    },
    async (request) => {
      const { actor, account } = await target(request, request.params.accountId);
      await consoleAccounts
        .renamePasskey(account, request.body.credentialId, request.body.name, actor)
        .catch(asDomainError);
      return ok({});
    },
  );
  app.post(
    '/admin/console-accounts/:accountId/passkeys/remove',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminConsoleAccountParams,
        body: AdminPasskeyRemove,
        ...documented({
          summary: 'Remove one passkey of the account, never its last (409)',
          security: 'console',
          result: NoResult,
        }),
      },
    },
    async (request) => {
      const { actor, account } = await target(request, request.params.accountId);
      await consoleAccounts.removePasskey(account, request.body.credentialId, actor).catch(asDomainError);
      return ok({});
    },
  );
  app.post(
    '/admin/console-accounts/:accountId/passkeys/reset',
    {
      config: { console: CONSOLE_ACCESS.administer },
      ...action,
      schema: {
        params: AdminConsoleAccountParams,
        body: EmptyRequest,
        ...documented({
          summary: 'Replace a lost passkey: every passkey removed, sessions ended, a new enrolment link',
          security: 'console',
          result: AdminEnrolmentLink,
        }),
      },
    },
    async (request) => {
      const { actor, account } = await target(request, request.params.accountId);
      const { removed, link } = await consoleAccounts.resetPasskeys(account, actor);
      return ok({ url: link.url, expiresAt: new Date(link.expiresAt).toISOString(), removed });
    },
  );
};
