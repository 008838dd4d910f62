import pino, { type DestinationStream, type Logger } from 'pino';

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
    timestamp: pino.stdTimeFunctions.isoTime,
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
  return destination === undefined ? pino(options) : pino(options, destination);
}
