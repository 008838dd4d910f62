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
 * unless a destination is given (tests read what a real run would write); there, each request's
 * line may wait up to `requestLinesWaitMs` in memory (stdoutLines), every other line goes out at once.
 */
export function createLogger(level: string, destination?: DestinationStream, requestLinesWaitMs = 0): Logger {
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
  // One stream under both loggers below, so that their lines go out whole and in order.
  const streams =
    destination === undefined
      ? stdoutLines(requestLinesWaitMs)
      : { lines: destination, requestLines: destination };
  const logger = pino(options, streams.lines);
  const { redact: _redact, ...withoutRedaction } = options;
  requestLineLoggers.set(logger, pino(withoutRedaction, streams.requestLines));
  return logger;
}

/** How many bytes of request lines wait before they are written together (sonic-boom's minLength). */
export const REQUEST_LINES_BUFFER_BYTES = 4096;

interface LineStreams {
  /** Every line but a request's: written at once, after the request lines waiting before it. */
  lines: DestinationStream;
  /** Each request's one line (http/request-log.ts), which may wait. */
  requestLines: DestinationStream;
  /** Writes what waits and closes the file descriptor (for tests: a server's is closed as it exits). */
  end(): void;
}

let stdoutStreams: { waitMs: number; streams: LineStreams } | undefined;

/** The process's stdout as LineStreams (one per process, whichever logger asks). */
function stdoutLines(waitMs: number): LineStreams {
  if (stdoutStreams?.waitMs !== waitMs) {
    stdoutStreams = { waitMs, streams: linesTo(process.stdout.fd || 1, waitMs) };
  }
  return stdoutStreams.streams;
}

/**
 * Lines to a file descriptor, each written by the thread that logs it (sonic-boom's sync mode), so
 * none overtakes another. With `waitMs` 0 each line is one write. Otherwise a request's line waits
 * in memory until REQUEST_LINES_BUFFER_BYTES of them wait, `waitMs` has passed or another line comes,
 * and they go out in one write: one write a request was about a tenth of the server's CPU for a
 * code's issue and verification from one client (docs/benchmarks.md, ADR 0029). What waits when the
 * process exits is written then; only a process killed without warning (SIGKILL) loses the request
 * lines of its last `waitMs`.
 */
export function linesTo(fd: number, waitMs: number): LineStreams {
  if (waitMs === 0) {
    const stream = pino.destination({ dest: fd, sync: true });
    return { lines: stream, requestLines: stream, end: () => stream.end() };
  }
  const stream = pino.destination({ dest: fd, sync: true, minLength: REQUEST_LINES_BUFFER_BYTES });
  // Whether request lines may wait: the timer then writes them, and an idle server writes nothing.
  let waiting = false;
  const writeWaiting = () => {
    if (!waiting) return;
    waiting = false;
    stream.flush();
  };
  const timer = setInterval(writeWaiting, waitMs).unref();
  process.once('exit', writeWaiting);
  return {
    requestLines: {
      write(line: string) {
        waiting = true;
        stream.write(line);
      },
    },
    lines: {
      write(line: string) {
        waiting = false;
        stream.write(line);
        stream.flush();
      },
    },
    end() {
      clearInterval(timer);
      process.removeListener('exit', writeWaiting);
      stream.end();
    },
  };
}

const requestLineLoggers = new WeakMap<object, Logger>();

/**
 * The logger of each request's one line (http/request-log.ts) beside a logger createLogger made:
 * the same file descriptor, level, fields and time, without the redaction, whose paths with wildcards
 * cost each line about three times its writing. That line holds only the fields the request log
 * names (method, path, status, time, address), none of which it could redact; every other line,
 * a failed request's included, goes through the redaction.
 */
export function requestLineLoggerOf(logger: unknown): Logger | undefined {
  return typeof logger === 'object' && logger !== null ? requestLineLoggers.get(logger) : undefined;
}
