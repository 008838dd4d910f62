import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The part of RADIUS (RFC 2865) an authentication server for PAP needs, with the
 * Message-Authenticator of RFC 3579 / RFC 2869 that the BlastRADIUS hardening requires on every
 * request and answer. Pure functions over buffers, so they are tested without a socket.
 */
export const PacketCode = {
  accessRequest: 1,
  accessAccept: 2,
  accessReject: 3,
} as const;

export const AttributeType = {
  userName: 1,
  userPassword: 2,
  replyMessage: 18,
  proxyState: 33,
  messageAuthenticator: 80,
} as const;

const HEADER_LENGTH = 20;
const MAX_PACKET_LENGTH = 4096;
const AUTHENTICATOR_LENGTH = 16;
const MAX_PASSWORD_LENGTH = 128;

export interface RadiusAttribute {
  type: number;
  value: Buffer;
  /** Where the value starts in the packet. */
  offset: number;
}

export interface RadiusPacket {
  code: number;
  identifier: number;
  /** The Request Authenticator of a request. */
  authenticator: Buffer;
  attributes: RadiusAttribute[];
  /** The packet as its length field says (bytes after it are padding and ignored). */
  raw: Buffer;
}

/** Parses a packet; undefined when it is not well formed (RFC 2865 section 3: silently dropped). */
export function decodePacket(data: Buffer): RadiusPacket | undefined {
  if (data.length < HEADER_LENGTH) return undefined;
  const length = data.readUInt16BE(2);
  if (length < HEADER_LENGTH || length > MAX_PACKET_LENGTH || length > data.length) return undefined;
  const raw = data.subarray(0, length);
  const attributes: RadiusAttribute[] = [];
  let offset = HEADER_LENGTH;
  while (offset < length) {
    if (offset + 2 > length) return undefined;
    const type = raw.readUInt8(offset);
    const attributeLength = raw.readUInt8(offset + 1);
    if (attributeLength < 2 || offset + attributeLength > length) return undefined;
    attributes.push({ type, value: raw.subarray(offset + 2, offset + attributeLength), offset: offset + 2 });
    offset += attributeLength;
  }
  return {
    code: raw.readUInt8(0),
    identifier: raw.readUInt8(1),
    authenticator: raw.subarray(4, HEADER_LENGTH),
    attributes,
    raw,
  };
}

export const attributesOf = (packet: RadiusPacket, type: number): RadiusAttribute[] =>
  packet.attributes.filter((attribute) => attribute.type === type);

const hmacMd5 = (secret: string, data: Buffer): Buffer => createHmac('md5', secret).update(data).digest();

/**
 * True when the request carries exactly one Message-Authenticator and it is the HMAC-MD5, under
 * the client's secret, of the packet with that attribute's value zeroed.
 */
export function hasValidMessageAuthenticator(packet: RadiusPacket, secret: string): boolean {
  const found = attributesOf(packet, AttributeType.messageAuthenticator);
  const [attribute] = found;
  if (found.length !== 1 || attribute === undefined || attribute.value.length !== AUTHENTICATOR_LENGTH) {
    return false;
  }
  const zeroed = Buffer.from(packet.raw);
  zeroed.fill(0, attribute.offset, attribute.offset + AUTHENTICATOR_LENGTH);
  return timingSafeEqual(hmacMd5(secret, zeroed), attribute.value);
}

function passwordPad(secret: string, previous: Buffer): Buffer {
  return createHash('md5').update(secret).update(previous).digest();
}

/** Reveals a User-Password (RFC 2865 section 5.2); undefined when its length is not valid. */
export function decryptPassword(
  hidden: Buffer,
  secret: string,
  requestAuthenticator: Buffer,
): string | undefined {
  if (hidden.length === 0 || hidden.length % 16 !== 0 || hidden.length > MAX_PASSWORD_LENGTH)
    return undefined;
  const clear = Buffer.alloc(hidden.length);
  let previous = requestAuthenticator;
  for (let start = 0; start < hidden.length; start += 16) {
    const pad = passwordPad(secret, previous);
    for (let index = 0; index < 16; index += 1) {
      clear[start + index] = (hidden[start + index] ?? 0) ^ (pad[index] ?? 0);
    }
    previous = hidden.subarray(start, start + 16);
  }
  const end = clear.indexOf(0);
  return clear.subarray(0, end === -1 ? clear.length : end).toString('utf8');
}

/** Hides a User-Password the way a client does (for tests and tools). */
export function encryptPassword(password: string, secret: string, requestAuthenticator: Buffer): Buffer {
  const clear = Buffer.from(password, 'utf8');
  const hidden = Buffer.alloc(Math.max(16, Math.ceil(clear.length / 16) * 16));
  clear.copy(hidden);
  let previous = requestAuthenticator;
  for (let start = 0; start < hidden.length; start += 16) {
    const pad = passwordPad(secret, previous);
    for (let index = 0; index < 16; index += 1) {
      hidden[start + index] = (hidden[start + index] ?? 0) ^ (pad[index] ?? 0);
    }
    previous = hidden.subarray(start, start + 16);
  }
  return hidden;
}

function assemble(
  code: number,
  identifier: number,
  authenticator: Buffer,
  attributes: [number, Buffer][],
): Buffer {
  const body = attributes.map(([type, value]) => {
    if (value.length > 253) throw new RangeError(`RADIUS attribute ${type} is too long`);
    return Buffer.concat([Buffer.from([type, value.length + 2]), value]);
  });
  const packet = Buffer.concat([Buffer.alloc(HEADER_LENGTH), ...body]);
  packet.writeUInt8(code, 0);
  packet.writeUInt8(identifier, 1);
  packet.writeUInt16BE(packet.length, 2);
  authenticator.copy(packet, 4);
  return packet;
}

/**
 * An Access-Accept or Access-Reject answering `request`: Message-Authenticator first (HMAC-MD5
 * over the answer with the Request Authenticator in place, RFC 3579 section 3.2), the request's
 * Proxy-State attributes copied in order (RFC 2865), then the Response Authenticator
 * MD5(code, identifier, length, Request Authenticator, attributes, secret) over all of it.
 */
export function encodeResponse(
  code: number,
  request: RadiusPacket,
  secret: string,
  /** Attributes to carry besides Message-Authenticator and Proxy-State (type, value). */
  extra: readonly [number, Buffer][] = [],
): Buffer {
  const attributes: [number, Buffer][] = [
    [AttributeType.messageAuthenticator, Buffer.alloc(AUTHENTICATOR_LENGTH)],
    ...attributesOf(request, AttributeType.proxyState).map((attribute): [number, Buffer] => [
      AttributeType.proxyState,
      attribute.value,
    ]),
  ];
  attributes.push(...extra);
  const packet = assemble(code, request.identifier, request.authenticator, attributes);
  // The Message-Authenticator value starts right after the header and its own type and length.
  hmacMd5(secret, packet).copy(packet, HEADER_LENGTH + 2);
  createHash('md5').update(packet).update(secret).digest().copy(packet, 4);
  return packet;
}

/** An Access-Request as a client sends it (for tests and tools). */
export function encodeAccessRequest(options: {
  identifier: number;
  authenticator: Buffer;
  userName: string;
  password: string;
  secret: string;
  messageAuthenticator: boolean;
}): Buffer {
  const { authenticator, secret } = options;
  const attributes: [number, Buffer][] = [
    [AttributeType.userName, Buffer.from(options.userName, 'utf8')],
    [AttributeType.userPassword, encryptPassword(options.password, secret, authenticator)],
  ];
  if (options.messageAuthenticator) {
    attributes.unshift([AttributeType.messageAuthenticator, Buffer.alloc(AUTHENTICATOR_LENGTH)]);
  }
  const packet = assemble(PacketCode.accessRequest, options.identifier, authenticator, attributes);
  if (options.messageAuthenticator) hmacMd5(secret, packet).copy(packet, HEADER_LENGTH + 2);
  return packet;
}

/** True when `response` is a genuine answer to `request` (Response and Message-Authenticator). */
export function isGenuineResponse(response: RadiusPacket, request: RadiusPacket, secret: string): boolean {
  const expected = Buffer.from(response.raw);
  request.authenticator.copy(expected, 4);
  const responseAuthenticator = createHash('md5').update(expected).update(secret).digest();
  if (!timingSafeEqual(responseAuthenticator, response.authenticator)) return false;
  const withRequestAuthenticator = decodePacket(expected);
  return (
    withRequestAuthenticator !== undefined && hasValidMessageAuthenticator(withRequestAuthenticator, secret)
  );
}
