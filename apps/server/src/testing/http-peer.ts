import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Set once the client went away before the peer answered (it gave up: a timeout). */
  abandoned?: true;
}

/** How the peer answers one request: a status and body, after an optional delay, or never. */
export type PeerAnswer = { status: number; body?: string; delayMs?: number } | 'hang';

export interface HttpPeer {
  url: string;
  received: ReceivedRequest[];
  /** Answers every following request with this (default 200 '{"ok":true}'). */
  answer(respond: (request: ReceivedRequest) => PeerAnswer): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and a random port that records every request: a test gateway. */
export async function startHttpPeer(): Promise<HttpPeer> {
  const received: ReceivedRequest[] = [];
  let respond: (request: ReceivedRequest) => PeerAnswer = () => ({ status: 200, body: '{"ok":true}' });
  const hanging = new Set<ServerResponse>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: ReceivedRequest = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      response.on('close', () => {
        if (!response.writableEnded) request.abandoned = true;
      });
      const answer = respond(request);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next) {
      respond = next;
    },
    close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Ports below the range the system hands out for port 0 (Linux's default: 32768 on), tried in turn; none of
 * them one that fetch refuses to ask (the Fetch standard's bad ports: 1, 7, 9 and others).
 */
const NEVER_HANDED_OUT = [2, 3, 4, 5, 6];

/**
 * A port of 127.0.0.1 that refuses connections and goes on refusing them while the test runs: one
 * below the range the system hands out for port 0, so that no server a test starts (they all listen
 * on port 0) can be given it meanwhile, as it can a port 0 listener's port once closed; checked by
 * connecting.
 */
export async function refusedPort(): Promise<number> {
  const answers: string[] = [];
  for (const port of NEVER_HANDED_OUT) {
    const answer = await connectionTo(port);
    if (answer === 'ECONNREFUSED') return port;
    answers.push(`${port}: ${answer}`);
  }
  throw new Error(
    `no port of 127.0.0.1 below the system's range refuses connections (${answers.join(', ')})`,
  );
}

/** What a connection to the port meets: 'connected', an error's code, or 'no answer' within 1 s. */
function connectionTo(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve('no answer');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
