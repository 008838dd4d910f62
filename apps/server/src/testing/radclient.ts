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

/** An answer and the attributes it carried, as radclient prints them (`Filter-Id = "vpn"`). */
export interface RadclientReply {
  answer: RadclientAnswer;
  attributes: string[];
}

/**
 * How long radclient waits for an answer the test expects: a safety net only, generous, so that a
 * loaded machine (eight requests hashing passwords at once beside other test files) is not taken
 * for a server that did not answer, as one second was.
 */
const ANSWER_WAIT_SECONDS = 20;

/**
 * How long a test that expects no answer (a request the server drops) listens: one second, so
 * "no reply" is quick. An answer later than that would make such a test pass, never fail.
 */
export const NO_REPLY_WAIT_SECONDS = 1;

/**
 * Sends one Access-Request with Debian's radclient (freeradius-utils), the real client of the
 * end-to-end tests: one try, waiting `waitSeconds` for the answer. Answers what came back, with the
 * reply's attributes decoded by radclient's own dictionaries.
 */
export function radclientReply(
  port: number,
  secret: string,
  attributes: RadclientAttributes,
  /** Seconds to wait for the answer: NO_REPLY_WAIT_SECONDS where none is expected. */
  waitSeconds = ANSWER_WAIT_SECONDS,
): Promise<RadclientReply> {
  const lines = [
    `User-Name = ${quoted(attributes.userName)}`,
    `User-Password = ${quoted(attributes.password)}`,
  ];
  if (attributes.messageAuthenticator !== false) lines.push('Message-Authenticator = 0x00');
  return new Promise((resolve, reject) => {
    const child = spawn(
      'radclient',
      ['-x', '-t', String(waitSeconds), '-r', '1', `127.0.0.1:${port}`, 'auth', secret],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const received = /Received (Access-Accept|Access-Reject) Id[^\n]*\n((?:\s+[^\n]*\n?)*)/.exec(output);
      const answer = received?.[1];
      if (answer === 'Access-Accept' || answer === 'Access-Reject') {
        const replied = (received?.[2] ?? '')
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '' && !line.startsWith('Message-Authenticator'));
        resolve({ answer, attributes: replied });
      } else if (/No reply from server/.test(output)) resolve({ answer: 'no reply', attributes: [] });
      else reject(new Error(`radclient said: ${output}`));
    });
    child.stdin.end(`${lines.join(', ')}\n`);
  });
}

/** Only whether radclient got an Access-Accept, an Access-Reject or nothing. */
export async function radclient(
  port: number,
  secret: string,
  attributes: RadclientAttributes,
  waitSeconds?: number,
): Promise<RadclientAnswer> {
  return (await radclientReply(port, secret, attributes, waitSeconds)).answer;
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
