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
import { MemoryAnswers, answerOnce } from '../domain/codes/retried-requests.js';
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
  /**
   * How long each answer is kept for the client's retransmission and how many at most
   * (DEA_RADIUS_RETRANSMIT_SECONDS, DEA_RADIUS_RETRANSMIT_MAX); 30 s and 10,000 when not given.
   */
  retransmissions?: { windowMs: number; max: number } | undefined;
  /** The clock of the retransmission window (tests move it); Date.now when not given. */
  now?: (() => number) | undefined;
}

export interface RadiusServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startRadiusServer(options: RadiusServerOptions): Promise<RadiusServer> {
  const { clients, authenticate, log } = options;
  const rejectAttributes: [number, Buffer][] =
    options.rejectMessage === undefined
      ? []
      : [[AttributeType.replyMessage, Buffer.from(options.rejectMessage, 'utf8')]];
  const socket: Socket = createSocket(isIPv6(options.host) ? 'udp6' : 'udp4');
  // A client retransmits to the server it asked (RFC 5080 section 2.2.2), so the answers live in
  // this instance's memory, bounded in count and time (domain/codes/retried-requests.ts).
  const { windowMs, max } = options.retransmissions ?? { windowMs: 30_000, max: 10_000 };
  const answered = new MemoryAnswers<Buffer>(max);
  const now = options.now ?? Date.now;

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
    // The same address, port, Identifier and Request Authenticator: the same request, sent again.
    const key = `${client}|${from.port}|${request.identifier}|${request.authenticator.toString('hex')}`;
    // What the request asks: its Message-Authenticator, checked above, is already an HMAC of the
    // whole packet under the client's secret (no further hash of it for every request).
    const fingerprint =
      attributesOf(request, AttributeType.messageAuthenticator)[0]?.value.toString('base64') ?? '';
    const once = await answerOnce(answered, { key, fingerprint, now: now(), windowMs }, () =>
      answer(request, secret, client),
    );
    // A copy of a request still being verified is dropped: the client sends it again later.
    if (once.state === 'in-flight') return;
    if (once.state === 'other-request') {
      log?.warn({ client }, 'RADIUS request reusing the Identifier and Authenticator of another dropped');
      return;
    }
    if (once.repeated) log?.debug({ client }, 'RADIUS retransmission answered with the first answer');
    socket.send(once.answer, from.port, from.address);
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
