import {
  ChannelChangeResult,
  EmptyRequest,
  PasskeyOptions,
  REGISTRATION_COOKIE_NAME,
  RegistrationOpenResult,
  RegistrationPasskeyOpenRequest,
  UserPasskeyAddRequest,
  UserPasskeyAddResult,
  UserPasskeyListResult,
  UserPasskeyRemoveRequest,
  UserPasskeyRenameRequest,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { UserPasskeyView } from '../../domain/registration/user-passkeys.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { relyingParty } from '../../http/relying-party.js';
import { documented } from '../../http/route-docs.js';
import { registrationCookies } from './registration-cookie.js';
import { signedInUser } from './user-routes.js';

const iso = (at: number): string => new Date(at).toISOString();

const viewOf = (passkey: UserPasskeyView) => ({
  id: passkey.id,
  name: passkey.name,
  createdAt: iso(passkey.createdAt),
  lastUsedAt: passkey.lastUsedAt === null ? null : iso(passkey.lastUsedAt),
});

/**
 * A person's own passkeys on the channels page: registered with channel-routes.ts,
 * under its session hook (the page's password session). One passkey with the page's session opens
 * a registration session (registration/passkey/*); listing, adding, renaming and removing them
 * need that session's cookie. The rules are domain/registration/user-passkeys.ts.
 */
export const passkeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { userPasskeys } = app.services;
  const person = (request: FastifyRequest) => ({ user: signedInUser(request), clientAddress: request.ip });
  const token = (request: FastifyRequest) => request.cookies[REGISTRATION_COOKIE_NAME];
  const noBody = { preValidation: emptyBodyAsObject };

  app.post(
    '/registration/passkey/options',
    {
      ...noBody,
      schema: {
        body: EmptyRequest,
        ...documented({
          summary: "Options to open the registration of channels with one of the person's passkeys",
          security: 'session',
          result: PasskeyOptions,
        }),
      },
    },
    async (request) => ok(await userPasskeys.signInOptions(person(request), relyingParty(request))),
  );

  app.post(
    '/registration/passkey/open',
    {
      schema: {
        body: RegistrationPasskeyOpenRequest,
        ...documented({
          summary:
            "Open a registration session with the person's passkey (user verification; the challenge once)",
          security: 'session',
          result: RegistrationOpenResult,
        }),
      },
    },
    async (request, reply) => {
      const opened = await userPasskeys.openWithPasskey(
        { ...person(request), response: request.body.credential },
        relyingParty(request),
      );
      registrationCookies(request, reply, opened);
      return ok({ expiresAt: iso(opened.expiresAt) });
    },
  );

  app.post(
    '/passkeys/list',
    {
      ...noBody,
      schema: {
        body: EmptyRequest,
        ...documented({
          summary: "The person's passkeys (inside a registration session)",
          security: 'session',
          result: UserPasskeyListResult,
        }),
      },
    },
    async (request) =>
      ok({ passkeys: (await userPasskeys.list(person(request), token(request))).map(viewOf) }),
  );

  app.post(
    '/passkeys/options',
    {
      ...noBody,
      schema: {
        body: EmptyRequest,
        ...documented({
          summary: 'Options to add a passkey (inside a registration session)',
          security: 'session',
          result: PasskeyOptions,
        }),
      },
    },
    async (request) =>
      ok(await userPasskeys.registrationOptions(person(request), token(request), relyingParty(request))),
  );

  app.post(
    '/passkeys/add',
    {
      schema: {
        body: UserPasskeyAddRequest,
        ...documented({
          summary: 'Add the passkey the browser made, under a name (inside a registration session)',
          security: 'session',
          result: UserPasskeyAddResult,
        }),
      },
    },
    async (request) => {
      const { enrolment: _ignored, ...response } = request.body.credential;
      const added = await userPasskeys.add(
        { ...person(request), response, name: request.body.name },
        token(request),
        relyingParty(request),
      );
      return ok({ passkey: viewOf(added) });
    },
  );

  app.post(
    '/passkeys/rename',
    {
      schema: {
        body: UserPasskeyRenameRequest,
        ...documented({
          summary: 'Rename one of the person’s passkeys (inside a registration session)',
          security: 'session',
          result: ChannelChangeResult,
        }),
      },
    },
    async (request) => {
      await userPasskeys.rename({ ...person(request), ...request.body }, token(request));
      return ok({ done: true });
    },
  );

  app.post(
    '/passkeys/remove',
    {
      schema: {
        body: UserPasskeyRemoveRequest,
        ...documented({
          summary: 'Remove one of the person’s passkeys (inside a registration session)',
          security: 'session',
          result: ChannelChangeResult,
        }),
      },
    },
    async (request) => {
      await userPasskeys.remove({ ...person(request), id: request.body.id }, token(request));
      return ok({ done: true });
    },
  );
};
