import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AttributeType,
  PacketCode,
  attributesOf,
  decodePacket,
  decryptPassword,
  encodeAccessRequest,
  encodeResponse,
  encryptPassword,
  hasValidMessageAuthenticator,
  isGenuineResponse,
} from './packet.js';

const SECRET = 'packet-test-secret-42';

function request(messageAuthenticator = true, extra: Buffer = Buffer.alloc(0)) {
  const packet = encodeAccessRequest({
    identifier: 42,
    authenticator: randomBytes(16),
    userName: 'chris',
    password: 'ABCDE23456',
    secret: SECRET,
    messageAuthenticator,
  });
  const decoded = decodePacket(Buffer.concat([packet, extra]));
  if (decoded === undefined) throw new Error('not decoded');
  return decoded;
}

/** Re-frames a packet with one more attribute (and, optionally, a fresh Message-Authenticator). */
function withAttribute(packet: Buffer, type: number, value: Buffer): Buffer {
  const longer = Buffer.concat([packet, Buffer.from([type, value.length + 2]), value]);
  longer.writeUInt16BE(longer.length, 2);
  return longer;
}

describe('RADIUS packets', () => {
  it('hides and reveals User-Password as RFC 2865 section 7.1 shows', () => {
    const authenticator = Buffer.from('0f403f9473978057bd83d5cb98f4227a', 'hex');
    const hidden = encryptPassword('arctangent', 'xyzzy5461', authenticator);
    expect(hidden.toString('hex')).toBe('0dbe708d93d413ce3196e43f782a0aee');
    expect(decryptPassword(hidden, 'xyzzy5461', authenticator)).toBe('arctangent');
  });

  it.each([1, 15, 16, 17, 100, 128])(
    'round-trips a password of %i bytes and refuses bad lengths',
    (length) => {
      const authenticator = randomBytes(16);
      const password = 'x'.repeat(length - 1) + 'Z';
      const hidden = encryptPassword(password, SECRET, authenticator);
      expect(hidden.length % 16).toBe(0);
      expect(decryptPassword(hidden, SECRET, authenticator)).toBe(password);
      expect(decryptPassword(hidden, `${SECRET}!`, authenticator)).not.toBe(password);
    },
  );

  it('refuses User-Password values of a length that is not 16 to 128 in steps of 16', () => {
    const authenticator = randomBytes(16);
    for (const length of [0, 15, 17, 144]) {
      expect(decryptPassword(Buffer.alloc(length), SECRET, authenticator)).toBeUndefined();
    }
  });

  it('drops what is not a well-formed packet and ignores bytes beyond its length', () => {
    const good = request().raw;
    expect(decodePacket(good.subarray(0, 19))).toBeUndefined();
    const tooLong = Buffer.from(good);
    tooLong.writeUInt16BE(good.length + 1, 2);
    expect(decodePacket(tooLong)).toBeUndefined();
    const badAttribute = Buffer.from(good);
    badAttribute.writeUInt8(1, 21);
    expect(decodePacket(badAttribute)).toBeUndefined();
    const padded = decodePacket(Buffer.concat([good, Buffer.from([1, 2, 3])]));
    expect(padded?.raw.length).toBe(good.length);
    expect(padded?.code).toBe(PacketCode.accessRequest);
    expect(padded?.identifier).toBe(42);
  });

  it('checks the Message-Authenticator of a request: present once, right secret, nothing changed', () => {
    const signed = request();
    expect(hasValidMessageAuthenticator(signed, SECRET)).toBe(true);
    expect(hasValidMessageAuthenticator(signed, `${SECRET}x`)).toBe(false);
    expect(hasValidMessageAuthenticator(request(false), SECRET)).toBe(false);

    const tampered = Buffer.from(signed.raw);
    const offset = attributesOf(signed, AttributeType.userName)[0]?.offset ?? 0;
    tampered.writeUInt8((tampered.readUInt8(offset) ^ 1) & 0xff, offset);
    expect(hasValidMessageAuthenticator(decodePacket(tampered) ?? signed, SECRET)).toBe(false);

    const twice = decodePacket(
      withAttribute(signed.raw, AttributeType.messageAuthenticator, Buffer.alloc(16)),
    );
    expect(twice && hasValidMessageAuthenticator(twice, SECRET)).toBe(false);
  });

  it('answers with Message-Authenticator first, the Proxy-State copied and both authenticators right', () => {
    const base = encodeAccessRequest({
      identifier: 200,
      authenticator: randomBytes(16),
      userName: 'chris',
      password: 'secret',
      secret: SECRET,
      messageAuthenticator: false,
    });
    const proxied = decodePacket(withAttribute(base, AttributeType.proxyState, Buffer.from('hop-1')));
    if (proxied === undefined) throw new Error('not decoded');
    const answer = encodeResponse(PacketCode.accessAccept, proxied, SECRET);
    const decoded = decodePacket(answer);
    if (decoded === undefined) throw new Error('not decoded');
    expect(decoded.code).toBe(PacketCode.accessAccept);
    expect(decoded.identifier).toBe(200);
    expect(decoded.attributes.map((attribute) => attribute.type)).toEqual([
      AttributeType.messageAuthenticator,
      AttributeType.proxyState,
    ]);
    expect(attributesOf(decoded, AttributeType.proxyState)[0]?.value.toString()).toBe('hop-1');

    // Computed here by the RFCs' recipe, independently of encodeResponse.
    const withRequestAuthenticator = Buffer.from(answer);
    proxied.authenticator.copy(withRequestAuthenticator, 4);
    const zeroed = Buffer.from(withRequestAuthenticator);
    zeroed.fill(0, 22, 38);
    expect(answer.subarray(22, 38)).toEqual(createHmac('md5', SECRET).update(zeroed).digest());
    expect(decoded.authenticator).toEqual(
      createHash('md5').update(withRequestAuthenticator).update(SECRET).digest(),
    );
    expect(isGenuineResponse(decoded, proxied, SECRET)).toBe(true);
    expect(isGenuineResponse(decoded, proxied, 'another-secret-xyz')).toBe(false);
    const rejected = decodePacket(encodeResponse(PacketCode.accessReject, proxied, SECRET));
    expect(rejected?.code).toBe(PacketCode.accessReject);
    expect(rejected && isGenuineResponse(rejected, proxied, SECRET)).toBe(true);
  });
});
