import { writeSync } from 'node:fs';
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
  // One file descriptor under both loggers below, through one destination, so that their lines
  // go out whole and in order.
  const streams =
    destination === undefined
      ? stdoutLines(requestLinesWaitMs)
      : { lines: destination, requestLines: destination };
  const logger = pino(options, streams.lines);
  const { redact: _redact, ...withoutRedaction } = options;
  requestLineLoggers.set(logger, pino(withoutRedaction, streams.requestLines));
  return logger;
}

/** How many characters (bytes, for the ASCII of most lines) of request lines wait before they are written together. */
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

/** The names of pino's levels, as a person reads them. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/**
 * One JSON log line as a person at a terminal reads it: the time of day, the level, the message,
 * then the other fields as name=value. A line that is not JSON stays as it is.
 */
export function readableLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const { time, level, msg, service: _service, ...fields } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const name = typeof level === 'number' ? (LEVEL_NAMES[level] ?? String(level)) : '';
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${[clock, name.padEnd(5), typeof msg === 'string' ? msg : ''].join(' ')}${rest === '' ? '' : `  ${rest}`}\n`;
}

/** Streams whose JSON lines are written as readableLine makes them (stdout at a terminal). */
function readableStreams(streams: LineStreams): LineStreams {
  const readable = (destination: DestinationStream): DestinationStream => ({
    write: (text: string) =>
      destination.write(
        text
          .split('\n')
          .filter((line) => line !== '')
          .map(readableLine)
          .join(''),
      ),
  });
  return {
    lines: readable(streams.lines),
    requestLines: readable(streams.requestLines),
    end: () => streams.end(),
  };
}

/**
 * The process's stdout as LineStreams: one per process, with one wait. At a terminal (npm start)
 * each line is written for a person (readableLine); anywhere else, one JSON object per line, as
 * Fastify's own tooling does.
 */
function stdoutLines(waitMs: number): LineStreams {
  const fd = process.stdout.fd || 1;
  stdoutStreams ??= {
    waitMs,
    streams: process.stdout.isTTY ? readableStreams(linesTo(fd, waitMs)) : linesTo(fd, waitMs),
  };
  if (stdoutStreams.waitMs !== waitMs)
    throw new Error(`stdout's log lines already wait ${stdoutStreams.waitMs} ms, not ${waitMs}`);
  return stdoutStreams.streams;
}

/**
 * Lines to a file descriptor through pino's destination as pino writes by default (sonic-boom's
 * asynchronous mode: lines logged while a write is under way go out together after it; a reader
 * that falls behind delays the writes, never the thread). With `waitMs` 0 that is all. Otherwise a
 * request's line first waits here until REQUEST_LINES_BUFFER_BYTES of them wait, `waitMs` has
 * passed or another line comes, and they go to the destination together: from one client every
 * request's line was a write of its own, about a twentieth of the server's CPU for a code's issue
 * and verification (ADR 0029). What waits when the process exits is written
 * then, after what the destination holds; a process killed by a signal it does not handle
 * (SIGKILL, SIGQUIT) or aborted (out of memory) loses the request lines of its last
 * `waitMs`, as it loses what the destination has not written yet.
 */
export function linesTo(fd: number, waitMs: number): LineStreams {
  const stream = pino.destination({ dest: fd, sync: false });
  if (waitMs === 0) return { lines: stream, requestLines: stream, end: () => stream.end() };
  let waiting = '';
  const release = (then = '') => {
    if (waiting === '' && then === '') return;
    stream.write(waiting + then);
    waiting = '';
  };
  const timer = setInterval(() => release(), waitMs).unref();
  const atExit = () => {
    if (waiting === '') return;
    // What the destination holds goes first (pino wrote it at exit already), then these, synchronously.
    try {
      stream.flushSync();
    } catch {
      // A destination already closed holds nothing.
    }
    writeWhole(fd, Buffer.from(waiting));
    waiting = '';
  };
  process.once('exit', atExit);
  return {
    requestLines: {
      write(line: string) {
        waiting += line;
        if (waiting.length >= REQUEST_LINES_BUFFER_BYTES) release();
      },
    },
    lines: { write: (line: string) => release(line) },
    end() {
      clearInterval(timer);
      process.removeListener('exit', atExit);
      release();
      stream.end();
    },
  };
}

/** Writes all of `bytes` before the process ends, waiting a little while a reader is behind. */
function writeWhole(fd: number, bytes: Buffer): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let offset = 0;
  for (let tries = 0; offset < bytes.length && tries < 200; tries += 1) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
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
