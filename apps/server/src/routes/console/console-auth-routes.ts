import {
  NoResult,
  ConsoleMe,
  ConsoleSignInRequest,
  ConsoleSignInResult,
  EmptyRequest,
  PasskeyAuthenticationResponse,
  PasskeyOptions,
  PasskeyRegistrationOptionsRequest,
  PasskeyRegistrationResponse,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clearConsoleCookies, setConsoleCookies } from '../../http/cookies.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { consoleCallerOf } from '../../http/console-guard.js';
import { documented } from '../../http/route-docs.js';
import { relyingParty } from '../../http/relying-party.js';

/**
 * Signing in to the console: the password, then the passkey (the first registered with the
 * account's one-time enrolment link),
 * on a session of its own (idle 15 minutes); every call but the first carries the session's
 * token in X-Console-Token.
 */
export const consoleAuthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { consoleAuth } = app.services;

  app.post(
    '/session',
    {
      schema: {
        body: ConsoleSignInRequest,
        ...documented({
          summary: 'Console sign-in, first factor: the password',
          security: 'none',
          result: ConsoleSignInResult,
        }),
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const started = await consoleAuth.password(username, password, request.ip);
      setConsoleCookies(request, reply, started.sessionId, started.xsrfToken);
      return ok({ next: started.next } satisfies ConsoleSignInResult);
    },
  );

  app.get(
    '/me',
    {
      config: { console: 'session' },
      schema: documented({
        summary: 'Who is signed in to the console, and how far',
        security: 'console',
        result: ConsoleMe,
      }),
    },
    async (request) => {
      const { account, passkeyVerified } = await consoleCallerOf(request, false);
      return ok({
        username: account.username,
        displayName: account.displayName,
        role: account.role,
        passkeyVerified,
        next: passkeyVerified ? null : await consoleAuth.passkeyStep(account.id),
      } satisfies ConsoleMe);
    },
  );

  const ceremony = { preValidation: emptyBodyAsObject };
  app.post(
    '/passkey/registration/options',
    {
      config: { console: 'session' },
      ...ceremony,
      schema: {
        body: PasskeyRegistrationOptionsRequest,
        ...documented({
          summary:
            "Options to register a passkey: the first after the password and with the account's enrolment link, more after a passkey",
          security: 'console',
          result: PasskeyOptions,
        }),
      },
    },
    async (request) =>
      ok(
        await consoleAuth.registrationOptions(
          await consoleCallerOf(request, true),
          relyingParty(request),
          request.body.enrolment,
        ),
      ),
  );
  app.post(
    '/passkey/registration',
    {
      config: { console: 'session' },
      schema: {
        body: PasskeyRegistrationResponse,
        ...documented({
          summary: 'Register the passkey the browser made',
          security: 'console',
          result: NoResult,
        }),
      },
    },
    async (request) => {
      const { enrolment, ...response } = request.body;
      await consoleAuth.register(
        await consoleCallerOf(request, true),
        response,
        relyingParty(request),
        enrolment,
      );
      return ok({});
    },
  );
  app.post(
    '/passkey/authentication/options',
    {
      config: { console: 'session' },
      ...ceremony,
      schema: {
        body: EmptyRequest,
        ...documented({
          summary: 'Options to sign in with a passkey',
          security: 'console',
          result: PasskeyOptions,
        }),
      },
    },
    async (request) =>
      ok(
        await consoleAuth.authenticationOptions(await consoleCallerOf(request, true), relyingParty(request)),
      ),
  );
  app.post(
    '/passkey/authentication',
    {
      config: { console: 'session' },
      schema: {
        body: PasskeyAuthenticationResponse,
        ...documented({
          summary: 'Sign in with the passkey the browser used',
          security: 'console',
          result: NoResult,
        }),
      },
    },
    async (request) => {
      await consoleAuth.authenticate(
        await consoleCallerOf(request, true),
        request.body,
        relyingParty(request),
      );
      return ok({});
    },
  );
  app.post(
    '/session/end',
    {
      config: { console: 'session' },
      ...ceremony,
      schema: {
        body: EmptyRequest,
        ...documented({ summary: 'Sign out of the console', security: 'console', result: NoResult }),
      },
    },
    async (request, reply) => {
      await consoleAuth.signOut(await consoleCallerOf(request, true));
      clearConsoleCookies(request, reply);
      return ok({});
    },
  );
};
