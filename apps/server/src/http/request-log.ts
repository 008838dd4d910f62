import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, written when it is answered (Fastify writes two: one when a request
 * arrives, one when it is answered): method, path, status, time and the client address, with the
 * request id Fastify adds to every line. The path goes without its query, which may carry what must
 * never be logged (a code on /validate/check).
 */
export class OneLinePerRequest extends LogController {
  /** Without it, the lines go to the request's own logger; with it (logging.ts requestLineLoggerOf), there with the request id. */
  constructor(private readonly lines?: FastifyBaseLogger) {
    super();
  }

  override incomingRequest(): void {
    // The line is written when the request is answered.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // Flat fields: pino's req and res serializers would read a request object there.
    const line = {
      method: request.method,
      path: pathOf(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      remoteAddress: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (this.lines === undefined) reply.log.info(line, 'request completed');
    else this.lines.info({ [this.requestIdLogLabel]: request.id, ...line }, 'request completed');
  }
}

/** The URL without its query, without an array or a regex on every request. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
