import { CONSOLE_OIDC_REFUSED_FRAGMENT, CONSOLE_PAGE_PATH, ConsoleSignInOptions } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { ConsoleOidcRefused, OIDC_FLOW_MS } from '../../domain/console/console-oidc.js';
import {
  clearConsoleOidcFlowCookie,
  consoleOidcFlowOf,
  setConsoleCookies,
  setConsoleOidcFlowCookie,
} from '../../http/cookies.js';
import { ok } from '../../http/envelope.js';
import { documented } from '../../http/route-docs.js';

/**
 * The console's sign-in with the organisation's OpenID provider (ADR 0020): the sign-in screen
 * asks whether there is one, the browser goes to /oidc/start, then to the provider, which sends
 * it back to /oidc/callback; the console page shows the session, or why it was refused
 * (#oidc-refused=<reason>).
 */
export const consoleOidcRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { consoleOidc } = app.services;

  app.get(
    '/oidc',
    {
      schema: documented({
        summary: "How the console's sign-in screen may sign in besides local accounts",
        security: 'none',
        result: ConsoleSignInOptions,
      }),
    },
    () =>
      ok({
        provider: consoleOidc === undefined ? null : { name: consoleOidc.providerName },
      } satisfies ConsoleSignInOptions),
  );

  const refusedTo = (reply: FastifyReply, error: unknown) => {
    if (!(error instanceof ConsoleOidcRefused)) throw error;
    return reply.redirect(`${CONSOLE_PAGE_PATH}#${CONSOLE_OIDC_REFUSED_FRAGMENT}=${error.reason}`, 303);
  };

  app.get(
    '/oidc/start',
    {
      schema: {
        summary:
          "Begins the sign-in with the OpenID provider: 303 to the provider's authorization endpoint (code, PKCE, state, nonce) with the flow cookie, or to the console with #oidc-refused=<reason>",
        security: [],
      },
    },
    async (request, reply) => {
      if (consoleOidc === undefined) return reply.redirect(CONSOLE_PAGE_PATH, 303);
      try {
        const { again } = request.query as { again?: string };
        const started = await consoleOidc.start(request.ip, again === '1');
        setConsoleOidcFlowCookie(request, reply, started.browserToken, OIDC_FLOW_MS / 1000);
        return await reply.redirect(started.url, 303);
      } catch (error) {
        return refusedTo(reply, error);
      }
    },
  );

  app.get(
    '/oidc/callback',
    {
      schema: {
        summary:
          'Where the OpenID provider sends the browser back (the redirect URI to register): 303 to the console, signed in, or with #oidc-refused=<reason>',
        security: [],
      },
    },
    async (request, reply) => {
      if (consoleOidc === undefined) return reply.redirect(CONSOLE_PAGE_PATH, 303);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const browserToken = consoleOidcFlowOf(request);
      clearConsoleOidcFlowCookie(request, reply);
      try {
        const signedIn = await consoleOidc.finish(query, browserToken, request.ip);
        setConsoleCookies(request, reply, signedIn.sessionId, signedIn.xsrfToken);
        return await reply.redirect(CONSOLE_PAGE_PATH, 303);
      } catch (error) {
        return refusedTo(reply, error);
      }
    },
  );
};
