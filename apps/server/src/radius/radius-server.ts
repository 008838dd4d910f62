import { type RemoteInfo, type Socket, createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import {
  AttributeType,
  PacketCode,
  type RadiusPacket,
  attributesOf,
  decodePacket,
  decryptPassword,
  encodeResponse,
  hasValidMessageAuthenticator,
} from './packet.js';
import { clientAddress } from './radius-config.js';

/** Accept, with the attributes that configure the session (type, value), or reject. */
export type RadiusDecision = { accept: true; attributes: [number, Buffer][] } | { accept: false };

/** Decides on `password` for `userName`, asked by `client`. */
export type RadiusAuthenticate = (
  userName: string,
  password: string,
  client: string,
) => Promise<RadiusDecision>;

export interface RadiusServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  clients: ReadonlyMap<string, string>;
  authenticate: RadiusAuthenticate;
  /** The Reply-Message of every Access-Reject; none when undefined (the default: it tells nothing). */
  rejectMessage?: string | undefined;
  log?: Pick<Logger, 'debug' | 'warn' | 'error'> | undefined;
}

export interface RadiusServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A client resends a request it got no answer to, with the same identifier and authenticator.
 * Verifying it again would consume a second use (or answer Reject for a code just accepted), so
 * the first answer is kept this long and sent again (RFC 5080 section 2.2.2).
 */
const DUPLICATE_WINDOW_MS = 30_000;
const MAX_REMEMBERED = 10_000;

interface Remembered {
  expiresAt: number;
  /** Undefined while the first copy is still being verified: copies are then dropped. */
  answer: Buffer | undefined;
}

export async function startRadiusServer(options: RadiusServerOptions): Promise<RadiusServer> {
  const { clients, authenticate, log } = options;
  const rejectAttributes: [number, Buffer][] =
    options.rejectMessage === undefined
      ? []
      : [[AttributeType.replyMessage, Buffer.from(options.rejectMessage, 'utf8')]];
  const socket: Socket = createSocket(isIPv6(options.host) ? 'udp6' : 'udp4');
  const remembered = new Map<string, Remembered>();

  function forgetExpired(now: number): void {
    for (const [key, entry] of remembered) {
      if (entry.expiresAt > now && remembered.size < MAX_REMEMBERED) break;
      remembered.delete(key);
    }
  }

  async function answer(request: RadiusPacket, secret: string, client: string): Promise<Buffer> {
    const [userName] = attributesOf(request, AttributeType.userName);
    const [hidden] = attributesOf(request, AttributeType.userPassword);
    const password = hidden && decryptPassword(hidden.value, secret, request.authenticator);
    // CHAP, EAP and the like cannot be checked against codes that are stored only as hashes.
    if (userName === undefined || password === undefined || password === '') {
      log?.debug({ client }, 'RADIUS Access-Request without User-Name and PAP User-Password rejected');
      return encodeResponse(PacketCode.accessReject, request, secret, rejectAttributes);
    }
    const decision = await authenticate(userName.value.toString('utf8'), password, client);
    return decision.accept
      ? encodeResponse(PacketCode.accessAccept, request, secret, decision.attributes)
      : encodeResponse(PacketCode.accessReject, request, secret, rejectAttributes);
  }

  async function handle(data: Buffer, from: RemoteInfo): Promise<void> {
    const client = clientAddress(from.address);
    const secret = clients.get(client);
    if (secret === undefined) {
      log?.warn({ client }, 'RADIUS request from an unknown client dropped');
      return;
    }
    const request = decodePacket(data);
    if (request === undefined || request.code !== PacketCode.accessRequest) {
      log?.debug({ client }, 'RADIUS packet that is not a well-formed Access-Request dropped');
      return;
    }
    if (!hasValidMessageAuthenticator(request, secret)) {
      log?.warn({ client }, 'RADIUS request without a valid Message-Authenticator dropped');
      return;
    }
    const now = Date.now();
    forgetExpired(now);
    const key = `${client}|${from.port}|${request.identifier}|${request.authenticator.toString('hex')}`;
    const earlier = remembered.get(key);
    if (earlier !== undefined) {
      if (earlier.answer !== undefined) socket.send(earlier.answer, from.port, from.address);
      return;
    }
    const entry: Remembered = { expiresAt: now + DUPLICATE_WINDOW_MS, answer: undefined };
    remembered.set(key, entry);
    try {
      entry.answer = await answer(request, secret, client);
    } catch (error) {
      // No answer: the client retries, and the retry is verified afresh.
      remembered.delete(key);
      throw error;
    }
    socket.send(entry.answer, from.port, from.address);
  }

  socket.on('message', (data, from) => {
    handle(data, from).catch((error: unknown) => log?.error({ err: error }, 'RADIUS request failed'));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port, options.host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', (error) => log?.error({ err: error }, 'RADIUS socket error'));
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
