import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export type FrontState = 'forwarding' | 'silent' | 'refusing';

export interface TcpFront {
  /** `ldap://` (or the scheme of the target) and this front's port. */
  url: string;
  /** Connections offered so far. */
  connections(): number;
  /** The most open at once. */
  mostOpen(): number;
  /** Connections open now: one given up by its client has gone. */
  open(): number;
  /** What it does with the next connections: forwards them, takes them and never answers, or cuts them. */
  become(state: FrontState): void;
  /** Cuts every open connection (a server restarted, a firewall's idle timeout). */
  cutAll(): void;
  close(): Promise<void>;
}

/**
 * A TCP port in front of a server (slapd) that counts the connections it is offered and, as told,
 * forwards them, takes them and never answers (a domain controller that hangs, a firewall that
 * drops, a paused VM: the host still answers TCP), or cuts them at once.
 */
export async function tcpFront(target: string, state: FrontState = 'forwarding'): Promise<TcpFront> {
  const { protocol, hostname, port } = new URL(target);
  let now = state;
  let count = 0;
  let most = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    count += 1;
    socket.on('error', () => undefined);
    if (now === 'refusing') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    most = Math.max(most, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    if (now === 'silent') {
      // Read and drop what comes, so that the client's close is seen.
      socket.resume();
      return;
    }
    const upstream = connect(Number(port), hostname);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const listening = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `${protocol}//127.0.0.1:${listening}`,
    connections: () => count,
    mostOpen: () => most,
    open: () => sockets.size,
    become: (next) => (now = next),
    cutAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port whose connections never complete (a host that drops the handshake: a firewall's DROP, a
 * powered-off server behind a router): a listener with a queue of one, filled, that never accepts.
 * Linux then drops further handshakes, so a client's connect waits until its own timeout. Node
 * accepts every connection it listens for, so the listener is a Python process.
 */
export async function portThatNeverConnects(
  scheme = 'ldap',
): Promise<{ url: string; close(): Promise<void> }> {
  const listener = spawn(
    'python3',
    [
      '-c',
      [
        'import socket, sys',
        's = socket.socket()',
        "s.bind(('127.0.0.1', 0))",
        's.listen(0)',
        'print(s.getsockname()[1], flush=True)',
        'sys.stdin.read()',
      ].join('\n'),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [line] = (await once(listener.stdout, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  // The one place in the queue, taken and never accepted.
  const filler = connect(port, '127.0.0.1');
  filler.on('error', () => undefined);
  await once(filler, 'connect');
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    async close() {
      filler.destroy();
      const exited = once(listener, 'exit');
      listener.stdin.end();
      await exited;
    },
  };
}
