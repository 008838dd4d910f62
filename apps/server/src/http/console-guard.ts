import type { FastifyRequest } from 'fastify';
import type { ConsoleCaller } from '../domain/console/console-auth.js';
import { CONSOLE_TOKEN_HEADER, consoleSessionOf } from './cookies.js';

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
