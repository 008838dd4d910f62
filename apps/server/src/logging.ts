import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), written once per millisecond: a busy server writes
 * several lines in the same one (every request's line), and toISOString was 2% of its CPU.
 */
export function isoTimeByMillisecond(now: () => number = Date.now): () => string {
  let last = Number.NaN;
  let written = '';
  return () => {
    const at = now();
    if (at !== last) {
      last = at;
      written = `,"time":"${new Date(at).toISOString()}"`;
    }
    return written;
  };
}

/**
 * Structured JSON lines. Requests are logged by method, path and status only (http/request-log.ts,
 * one line each): bodies (codes,
 * passwords) and headers (cookies, tokens, keys) never reach a log line; the redaction below
 * is a second guard for anything that logs a request or reply object whole. Lines go to stdout
 * unless a destination is given (tests read what a real run would write).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'dea' },
    timestamp: isoTimeByMillisecond(),
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers.authorization',
        'req.headers["x-xsrf-token"]',
        'res.headers["set-cookie"]',
        'password',
        'code',
        '*.password',
        '*.code',
      ],
      censor: '[redacted]',
    },
  };
  // One stream for both loggers below, so that their lines go out whole and in order.
  const stream = destination ?? pino.destination(process.stdout.fd || 1);
  const logger = pino(options, stream);
  const { redact: _redact, ...withoutRedaction } = options;
  requestLineLoggers.set(logger, pino(withoutRedaction, stream));
  return logger;
}

const requestLineLoggers = new WeakMap<object, Logger>();

/**
 * The logger of each request's one line (http/request-log.ts) beside a logger createLogger made:
 * the same stream, level, fields and time, without the redaction, whose paths with wildcards
 * cost each line about three times its writing. That line holds only the fields the request log
 * names (method, path, status, time, address), none of which it could redact; every other line,
 * a failed request's included, goes through the redaction.
 */
export function requestLineLoggerOf(logger: unknown): Logger | undefined {
  return typeof logger === 'object' && logger !== null ? requestLineLoggers.get(logger) : undefined;
}
