import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';

export type RadclientAnswer = 'Access-Accept' | 'Access-Reject' | 'no reply';

export interface RadclientAttributes {
  userName: string;
  password: string;
  /** False leaves Message-Authenticator out of the request. */
  messageAuthenticator?: boolean;
}

const quoted = (text: string): string => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/**
 * Sends one Access-Request with Debian's radclient (freeradius-utils), the real client of the
 * end-to-end tests: one try, one second to wait, so "no reply" is quick.
 */
export function radclient(
  port: number,
  secret: string,
  attributes: RadclientAttributes,
): Promise<RadclientAnswer> {
  const lines = [
    `User-Name = ${quoted(attributes.userName)}`,
    `User-Password = ${quoted(attributes.password)}`,
  ];
  if (attributes.messageAuthenticator !== false) lines.push('Message-Authenticator = 0x00');
  return new Promise((resolve, reject) => {
    const child = spawn('radclient', ['-x', '-t', '1', '-r', '1', `127.0.0.1:${port}`, 'auth', secret], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const received = /Received (Access-Accept|Access-Reject) Id/.exec(output)?.[1];
      if (received === 'Access-Accept' || received === 'Access-Reject') resolve(received);
      else if (/No reply from server/.test(output)) resolve('no reply');
      else reject(new Error(`radclient said: ${output}`));
    });
    child.stdin.end(`${lines.join(', ')}\n`);
  });
}

export interface UdpClient {
  /** Sends raw bytes and answers the first reply, or undefined after `waitMs`. */
  send(port: number, packet: Buffer, waitMs?: number): Promise<Buffer | undefined>;
  close(): void;
}

/** One UDP socket, so that repeated sends come from one source port as a client's retries do. */
export function udpClient(): UdpClient {
  const socket = createSocket('udp4');
  let waiting: ((reply: Buffer) => void) | undefined;
  socket.on('message', (reply) => waiting?.(reply));
  return {
    send(port, packet, waitMs = 500) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          resolve(undefined);
        }, waitMs);
        waiting = (reply) => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(reply);
        };
        socket.send(packet, port, '127.0.0.1');
      });
    },
    close: () => socket.close(),
  };
}

/** Sends raw bytes from a fresh socket and answers the first reply, or undefined after `waitMs`. */
export async function sendUdp(port: number, packet: Buffer, waitMs = 500): Promise<Buffer | undefined> {
  const client = udpClient();
  try {
    return await client.send(port, packet, waitMs);
  } finally {
    client.close();
  }
}
