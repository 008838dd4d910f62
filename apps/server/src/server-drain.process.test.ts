import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, startServerProcess } from './testing/processes.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Answer {
  status: number;
  headers: Record<string, string>;
}

/** A kept-alive connection on which requests are written by hand, one after the other. */
class KeptAlive {
  readonly socket: Socket;
  /** Every error the socket met (ECONNRESET is what must never happen). */
  readonly errors: Error[] = [];
  /** Resolved when the server has closed the connection. */
  readonly closed: Promise<void>;
  private received = '';
  private waiting: (() => void) | undefined;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.received += chunk.toString('latin1');
      this.waiting?.();
    });
    this.socket.on('error', (error) => this.errors.push(error));
    // One listener for the whole connection: a wait for the next chunk also ends when it closes.
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        resolve();
        this.waiting?.();
      }),
    );
  }

  /** Writes `text` and answers the next complete answer on the connection. */
  async send(text: string): Promise<Answer> {
    this.socket.write(text);
    return this.answer();
  }

  private async answer(): Promise<Answer> {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine = '', ...lines] = this.received.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
          }),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.received.length >= end + 4 + length) {
          this.received = this.received.slice(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers };
        }
      }
      if (this.socket.destroyed) throw new Error(`connection closed before an answer: ${this.errors.join()}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}

const GET_HEALTH = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const GET_LANGUAGES = 'GET /dea/api/resourceFile/getLanguageList HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('the server process: a drain on SIGTERM resets no kept-alive connection', () => {
  it('answers requests in flight and on idle kept-alive connections with Connection: close, and closes the idle ones cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dea-drain-'));
    dirs.push(dataDir);
    const server = await startServerProcess({
      DEA_DATA_DIR: dataDir,
      DEA_LOG_LEVEL: 'info',
      DEA_SHUTDOWN_DRAIN_SECONDS: '2',
      DEA_MANAGEMENT_PORT: '0',
    });
    const port = Number(new URL(server.base).port);
    await expect.poll(() => /"managementUrl":"http:\/\/[^"]+:(\d+)"/.exec(server.output())).not.toBeNull();
    const managementPort = Number(/"managementUrl":"http:\/\/[^"]+:(\d+)"/.exec(server.output())?.[1]);
    const exited = exitOf(server.child);

    // Sixteen connections kept alive, plus one on the management port, each used once.
    const used = Array.from({ length: 16 }, () => new KeptAlive(port));
    const management = new KeptAlive(managementPort);
    const before = await Promise.all([
      ...used.map((connection) => connection.send(GET_LANGUAGES)),
      management.send(GET_HEALTH),
    ]);
    for (const answer of before) {
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).not.toBe('close');
    }

    server.child.kill('SIGTERM');
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${managementPort}/readyz`)).status)
      .toBe(503);

    // During the drain: half of them ask again and are answered, told to close.
    const [asking, idle] = [used.slice(0, 8), used.slice(8, 15)];
    const inFlight = used[15]!;
    const during = await Promise.all([
      ...asking.map((connection) => connection.send(GET_LANGUAGES)),
      management.send(GET_HEALTH),
    ]);
    for (const answer of during) {
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
    }
    await Promise.all([...asking, management].map((connection) => connection.closed));

    // A request whose body is still arriving when the listener closes is answered, told to close.
    const body = JSON.stringify({ username: 'nobody', password: 'nothing' });
    inFlight.socket.write(
      `POST /login/api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${server.base}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await expect.poll(() => server.output(), { timeout: 5000 }).toContain('closing the listener');
    const late = await inFlight.send(body.slice(5));
    expect(late.status).toBeLessThan(500);
    expect(late.headers.connection).toBe('close');

    // The connections idle since before the signal are closed by the server, not reset.
    await Promise.all([...idle, inFlight].map((connection) => connection.closed));
    expect(await exited).toBe(0);
    for (const connection of [...used, management]) expect(connection.errors).toEqual([]);
  });

  it('resets no request on a connection kept alive by clients that send without pause through the whole stop', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dea-drain-'));
    dirs.push(dataDir);
    const server = await startServerProcess({ DEA_DATA_DIR: dataDir, DEA_SHUTDOWN_DRAIN_SECONDS: '1' });
    const port = Number(new URL(server.base).port);
    let stopped = false;
    const exited = exitOf(server.child).then((code) => {
      stopped = true;
      return code;
    });
    /**
     * A client that sends its next request as soon as an answer arrives, on the same connection
     * while the server keeps it alive, on a new one when told to close, until the process is gone.
     * It answers the failures of requests sent on a connection that had already carried an answer
     * (the ones a kept-alive connection must never meet) and how many answers it got.
     */
    const results = Array.from({ length: 16 }, () => ({ answers: 0, reused: [] as string[] }));
    const client = async (result: (typeof results)[number]): Promise<void> => {
      while (!stopped) {
        const connection = new KeptAlive(port);
        let served = 0;
        try {
          for (;;) {
            const answer = await connection.send(GET_LANGUAGES);
            served += 1;
            result.answers += 1;
            if (answer.headers.connection === 'close' || stopped) break;
          }
        } catch (error) {
          if (served > 0) result.reused.push(`${(error as Error).message} after ${served} answers`);
        }
        connection.socket.destroy();
        await connection.closed;
      }
    };
    const clients = Promise.all(results.map(client));
    // Every client has its connection going before the signal.
    await expect.poll(() => results.every((result) => result.answers >= 10)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await clients;
    expect(results.flatMap((result) => result.reused)).toEqual([]);
  });
});
