import {
  CreatedId,
  AdminPasswordLink,
  AdminPeople,
  AdminPeopleQuery,
  AdminPerson,
  AdminPersonChanged,
  AdminPersonCreate,
  AdminPersonMembership,
  AdminPersonParams,
  AdminPersonUpdate,
  ChannelAddRequest,
  ChannelAddResult,
  ChannelProveRequest,
  ChannelRemoveRequest,
  EmptyRequest,
} from '@dea/contract';
import type { ChannelKey } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';

/** People in the console: users administered by an administrator. */
export const peopleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { peopleAdministration: people } = app.services;
  const action = { preValidation: emptyBodyAsObject };

  app.get(
    '/admin/people',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        querystring: AdminPeopleQuery,
        ...documented({
          summary: 'Users, found by a part of their name',
          security: 'console',
          result: AdminPeople,
        }),
      },
    },
    async (request) => ok(await people.list(guardedCaller(request), request.query.q)),
  );
  app.post(
    '/admin/people',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminPersonCreate,
        ...documented({
          summary: 'Add a local user',
          security: 'console',
          result: CreatedId,
        }),
      },
    },
    async (request) => ok(await people.create(guardedCaller(request), request.body)),
  );
  app.get(
    '/admin/people/:userId',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminPersonParams,
        ...documented({
          summary: 'A user: fields, who owns each, groups, channels and the addresses waiting for their code',
          security: 'console',
          result: AdminPerson,
        }),
      },
    },
    async (request) => ok(await people.person(guardedCaller(request), request.params.userId)),
  );
  app.post(
    '/admin/people/:userId',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminPersonParams,
        body: AdminPersonUpdate,
        ...documented({
          summary: "Change a user's full name, locale or time zone (409 when another source owns it)",
          security: 'console',
          result: AdminPersonChanged,
        }),
      },
    },
    async (request) => ok(await people.update(guardedCaller(request), request.params.userId, request.body)),
  );
  for (const [path, summary, run] of [
    ['disable', 'Disable a user: sessions end, unused codes are revoked', people.disable.bind(people)],
    ['enable', 'Enable a disabled user', people.enable.bind(people)],
    ['remove', 'Remove a user with their channels, codes and sessions', people.remove.bind(people)],
    ['sessions/end', 'End every session of the user', people.endSessions.bind(people)],
  ] as const) {
    app.post(
      `/admin/people/:userId/${path}`,
      {
        config: { console: CONSOLE_ACCESS.administer },
        ...action,
        schema: {
          params: AdminPersonParams,
          body: EmptyRequest,
          ...documented({ summary, security: 'console', result: AdminPersonChanged }),
        },
      },
      async (request) => ok(await run(guardedCaller(request), request.params.userId)),
    );
  }
  app.post(
    '/admin/people/:userId/groups',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminPersonParams,
        body: AdminPersonMembership,
        ...documented({
          summary: 'Add the user to a group or take them out (409 for a group another source owns)',
          security: 'console',
          result: AdminPersonChanged,
        }),
      },
    },
    async (request) =>
      ok(
        await people.membership(
          guardedCaller(request),
          request.params.userId,
          request.body.groupId,
          request.body.member,
        ),
      ),
  );
  app.post(
    '/admin/people/:userId/channels/proofs',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: AdminPersonParams,
        body: ChannelAddRequest,
        ...documented({
          summary:
            "Send a code to a new or changed address of a local user's channel; it becomes the channel once the code is entered (409 for another source's user)",
          security: 'console',
          result: ChannelAddResult,
        }),
      },
    },
    async (request) =>
      ok(
        await people.startChannelProof(
          guardedCaller(request),
          request.params.userId,
          request.body,
          request.ip,
        ),
      ),
  );
  app.post(
    '/admin/people/:userId/channels/prove',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: AdminPersonParams,
        body: ChannelProveRequest,
        ...documented({
          summary:
            "The code the person read out: the address becomes the user's channel, replacing the key's old one, and their other channels are told",
          security: 'console',
          result: AdminPersonChanged,
        }),
      },
    },
    async (request) =>
      ok(await people.proveChannel(guardedCaller(request), request.params.userId, request.body, request.ip)),
  );
  app.post(
    '/admin/people/:userId/channels/remove',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: AdminPersonParams,
        body: ChannelRemoveRequest,
        ...documented({
          summary: "Remove a local user's channel (409 for another source's user)",
          security: 'console',
          result: AdminPersonChanged,
        }),
      },
    },
    async (request) =>
      ok(
        await people.removeChannel(
          guardedCaller(request),
          request.params.userId,
          request.body.key as ChannelKey,
          request.ip,
        ),
      ),
  );
  app.post(
    '/admin/people/:userId/password-link',
    {
      config: { console: CONSOLE_ACCESS.administer },
      ...action,
      schema: {
        params: AdminPersonParams,
        body: EmptyRequest,
        ...documented({
          summary: 'A one-time link with which the user sets a new password (409 for a directory user)',
          security: 'console',
          result: AdminPasswordLink,
        }),
      },
    },
    async (request) => ok(await people.passwordLink(guardedCaller(request), request.params.userId)),
  );
};
