import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ConsoleAccess } from '../domain/console/console-access.js';
import type { ConsoleCaller } from '../domain/console/console-auth.js';
import { forbidden } from '../domain/errors.js';
import { CONSOLE_TOKEN_HEADER, consoleSessionOf } from './cookies.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this console route (domain/console/console-access.ts), checked by the console guard. */
    console?: ConsoleAccess;
  }
  interface FastifyRequest {
    /** The console caller the guard let through, for a route that declares `console`. */
    consoleCaller: ConsoleCaller | undefined;
  }
}

/**
 * The console session of a request (its cookie), checked by ConsoleAuth: open, not idle too
 * long, of an enabled account, and with `needsToken` the session's token in X-Console-Token.
 */
export function consoleCallerOf(request: FastifyRequest, needsToken: boolean): Promise<ConsoleCaller> {
  const token = request.headers[CONSOLE_TOKEN_HEADER];
  return request.server.services.consoleAuth.caller(
    consoleSessionOf(request),
    typeof token === 'string' ? token : undefined,
    needsToken,
  );
}

/** The guard of one route: its caller, with the token for anything but a read, of a declared role past the passkey. */
const guard: preHandlerAsyncHookHandler = async (request) => {
  const roles = request.routeOptions.config.console;
  if (roles === undefined || roles === 'session') return;
  const caller = await consoleCallerOf(request, request.method !== 'GET');
  if (!caller.passkeyVerified || !(roles as readonly string[]).includes(caller.account.role))
    throw forbidden();
  request.consoleCaller = caller;
};

/**
 * Who may act in the console, checked in one place: every route registered in `app` that declares
 * roles in `config.console` gets the guard before its handler (after its schema's validation, as
 * the use cases checked it before). A route documented as the console's that declares nothing
 * stops the server's start.
 */
export function installConsoleGuard(app: FastifyInstance): void {
  app.decorateRequest('consoleCaller', undefined);
  app.addHook('onRoute', (route) => {
    const documentedConsole = (route.schema as { security?: object[] } | undefined)?.security?.some(
      (scheme) => 'consoleSession' in scheme,
    );
    if (route.config?.console === undefined) {
      if (documentedConsole)
        throw new Error(
          `${String(route.method)} ${route.url}: a console route declares who may call it (config.console)`,
        );
      return;
    }
    if (route.config.console === 'session') return;
    const own = route.preHandler;
    route.preHandler = own === undefined ? [guard] : [guard, ...(Array.isArray(own) ? own : [own])];
  });
}

/** The caller the console guard let through; a route that declares no `console` has none. */
export function guardedCaller(request: FastifyRequest): ConsoleCaller {
  const caller = request.consoleCaller;
  if (caller === undefined)
    throw new Error(`${request.routeOptions.url ?? request.url} declares no console access`);
  return caller;
}
