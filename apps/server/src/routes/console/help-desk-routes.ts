import {
  EmptyRequest,
  HelpDeskCountResult,
  HelpDeskRegistrationLinkResult,
  HelpDeskIssueRequest,
  HelpDeskIssueResult,
  HelpDeskRevokeRequest,
  HelpDeskSearchQuery,
  HelpDeskSearchResult,
  HelpDeskSendRequest,
  HelpDeskSendResult,
  HelpDeskUser,
  HelpDeskUserParams,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';
import { forgetUserPasskeys } from '../../domain/registration/user-passkeys.js';
import { allowAddresses, registrationUndoneOf } from '../../domain/channels/channel-proof.js';

/** The help desk's calls: find a user, see them, and help them; roles admin and helpdesk. */
export const helpDeskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { consoleAuth, helpDesk, registrationSignIn, rememberedDevices, store, now } = app.services;
  const action = (
    summary: string,
    result: typeof HelpDeskCountResult | typeof HelpDeskRegistrationLinkResult,
  ) => ({
    config: { console: CONSOLE_ACCESS.workHelpDesk },
    preValidation: emptyBodyAsObject,
    schema: {
      params: HelpDeskUserParams,
      body: EmptyRequest,
      ...documented({ summary, security: 'console', result }),
    },
  });

  app.get(
    '/helpdesk/users',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        querystring: HelpDeskSearchQuery,
        ...documented({
          summary: 'Find users by name, user name or the last digits of a channel',
          security: 'console',
          result: HelpDeskSearchResult,
        }),
      },
    },
    async (request) => ok({ users: await helpDesk.search(guardedCaller(request), request.query.q) }),
  );
  app.get(
    '/helpdesk/users/:userId',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: HelpDeskUserParams,
        ...documented({
          summary: "A user's group policy, masked channels, unused codes, lock, sessions and recent audit",
          security: 'console',
          result: HelpDeskUser,
        }),
      },
    },
    async (request) => {
      const view = await helpDesk.user(guardedCaller(request), request.params.userId);
      // What an undo left (ADR 0034): the person's view is read first, so only someone the agent may see.
      const undone = await registrationUndoneOf(store, view.user.id);
      const iso = (at: number) => new Date(at).toISOString();
      return ok({
        ...view,
        registrationUndone: {
          passwordKnownSince: undone.passwordKnownSince === null ? null : iso(undone.passwordKnownSince),
          blocked: undone.blocked.map((each) => ({ ...each, blockedAt: iso(each.blockedAt) })),
        },
      });
    },
  );
  app.post(
    '/helpdesk/users/:userId/codes',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: HelpDeskUserParams,
        body: HelpDeskIssueRequest,
        ...documented({
          summary:
            'Issue a code for a caller, with the reason; shown once (re-asks the passkey when it is not fresh)',
          security: 'console',
          result: HelpDeskIssueResult,
        }),
      },
    },
    async (request) => {
      const who = guardedCaller(request);
      return ok(
        await helpDesk.issue(
          who,
          request.params.userId,
          request.body.reason,
          consoleAuth.passkeyFresh(who),
          request.ip,
        ),
      );
    },
  );
  app.post(
    '/helpdesk/users/:userId/codes/send',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: HelpDeskUserParams,
        body: HelpDeskSendRequest,
        ...documented({
          summary:
            "Send a code to one of the user's channels, with the reason (re-asks the passkey when it is not fresh)",
          security: 'console',
          result: HelpDeskSendResult,
        }),
      },
    },
    async (request) => {
      const who = guardedCaller(request);
      return ok(
        await helpDesk.sendToChannel(
          who,
          request.params.userId,
          request.body,
          consoleAuth.passkeyFresh(who),
          request.ip,
          request.log,
        ),
      );
    },
  );
  app.post(
    '/helpdesk/users/:userId/codes/revoke',
    {
      config: { console: CONSOLE_ACCESS.workHelpDesk },
      schema: {
        params: HelpDeskUserParams,
        body: HelpDeskRevokeRequest,
        ...documented({
          summary: 'Take back one unused code, or all',
          security: 'console',
          result: HelpDeskCountResult,
        }),
      },
    },
    async (request) =>
      ok({
        count: await helpDesk.revoke(guardedCaller(request), request.params.userId, request.body.codeId),
      }),
  );
  app.post(
    '/helpdesk/users/:userId/registration-link',
    action(
      "Make a one-time link that opens the registration of the user's own channels",
      HelpDeskRegistrationLinkResult,
    ),
    async (request) => {
      const made = await helpDesk.registrationLink(
        guardedCaller(request),
        request.params.userId,
        (user, actor) => registrationSignIn.issueLink(user, actor),
      );
      return ok({ url: made.url, expiresAt: new Date(made.expiresAt).toISOString() });
    },
  );
  app.post(
    '/helpdesk/users/:userId/devices/forget',
    action(
      "Forget the user's remembered devices: no browser of theirs shows a code on screen for being one any more",
      HelpDeskCountResult,
    ),
    async (request) =>
      ok({
        count: await helpDesk.forgetFor(guardedCaller(request), request.params.userId, (user, actor) =>
          rememberedDevices.forgetAll(user, { actor, clientAddress: request.ip }),
        ),
      }),
  );
  app.post(
    '/helpdesk/users/:userId/passkeys/forget',
    action(
      'Remove every passkey the user registered for the registration of their channels',
      HelpDeskCountResult,
    ),
    async (request) =>
      ok({
        count: await helpDesk.forgetFor(guardedCaller(request), request.params.userId, (user, actor) =>
          forgetUserPasskeys({ store, now }, user, actor),
        ),
      }),
  );
  app.post(
    '/helpdesk/users/:userId/addresses/allow',
    action(
      'Allow the user to register again the addresses an undo ("this was not me") blocked',
      HelpDeskCountResult,
    ),
    async (request) =>
      ok({
        count: await helpDesk.forgetFor(
          guardedCaller(request),
          request.params.userId,
          async (user, actor) =>
            (await allowAddresses({ store, now }, user, { actor, clientAddress: request.ip })).length,
        ),
      }),
  );
  app.post(
    '/helpdesk/users/:userId/unlock',
    action('End the verification lock', HelpDeskCountResult),
    async (request) => ok({ count: await helpDesk.unlock(guardedCaller(request), request.params.userId) }),
  );
  app.post(
    '/helpdesk/users/:userId/sessions/end',
    action("End the user's sessions", HelpDeskCountResult),
    async (request) =>
      ok({ count: await helpDesk.endSessions(guardedCaller(request), request.params.userId) }),
  );
};
