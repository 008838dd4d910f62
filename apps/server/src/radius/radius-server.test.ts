import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bodies } from '../testing/api-bodies.js';
import { NO_REPLY_WAIT_SECONDS, radclient, sendUdp, udpClient } from '../testing/radclient.js';
import { createTestApp, type TestApp, type TestUser } from '../testing/test-app.js';
import { PacketCode, decodePacket, encodeAccessRequest, isGenuineResponse } from './packet.js';
import { type RadiusServer, startRadiusServer } from './radius-server.js';
import { radiusAuthenticator, startRadius } from './start-radius.js';

const SECRET = 'radius-test-secret-0123';
const MAX_FAILURES = 3;

async function issuedCode(t: TestApp): Promise<{ user: TestUser; code: string }> {
  const user = await t.createUser();
  const session = await t.signIn(user);
  const response = await t.call(`${API}/tempPass/create`, bodies.create(user.id), session);
  const code = response.json<{ result: { rows: { password: string }[] } }>().result.rows[0]?.password ?? '';
  expect(code).toMatch(/^[2-9A-Z]{10}$/);
  return { user, code };
}

async function radiusFor(t: TestApp, clients: [string, string][]): Promise<RadiusServer> {
  return startRadiusServer({
    host: '127.0.0.1',
    port: 0,
    clients: new Map(clients),
    authenticate: radiusAuthenticator(t.services),
    retransmissions: t.services.config.radius.retransmissions,
    now: t.clock.now,
  });
}

/** A signed Access-Request of the user with this Identifier and a fresh Request Authenticator. */
const accessRequest = (identifier: number, userName: string, password: string): Buffer =>
  encodeAccessRequest({
    identifier,
    authenticator: randomBytes(16),
    userName,
    password,
    secret: SECRET,
    messageAuthenticator: true,
  });

describe('RADIUS server with radclient on sqlite', () => {
  let t: TestApp;
  let server: RadiusServer;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_VERIFY_MAX_FAILURES: String(MAX_FAILURES) });
    server = await radiusFor(t, [['127.0.0.1', SECRET]]);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });
  const events = (userId: string, event: string) => t.services.store.audit.list({ userId, event });

  it('accepts a fresh code for the user name once, then rejects its reuse; both audited as radius:<client>', async () => {
    const { user, code } = await issuedCode(t);
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Accept',
    );
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Reject',
    );
    const used = await events(user.id, 'code.used');
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ actor: 'radius:127.0.0.1', clientAddress: '127.0.0.1' });
    const failed = await events(user.id, 'code.verify_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.actor).toBe('radius:127.0.0.1');
    expect(JSON.stringify([...used, ...failed])).not.toContain(code);
  });

  it('rejects a wrong code, an unknown user name and the user id in place of the name', async () => {
    const { user, code } = await issuedCode(t);
    const wrong = code.replace(/.$/, (last) => (last === '2' ? '3' : '2'));
    expect(await radclient(server.port, SECRET, { userName: user.username, password: wrong })).toBe(
      'Access-Reject',
    );
    expect(await radclient(server.port, SECRET, { userName: `${user.username}-x`, password: code })).toBe(
      'Access-Reject',
    );
    expect(await radclient(server.port, SECRET, { userName: user.id, password: code })).toBe('Access-Reject');
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Accept',
    );
  });

  it('locks the user after consecutive failures: the right code is then rejected and not consumed', async () => {
    const { user, code } = await issuedCode(t);
    for (let attempt = 0; attempt < MAX_FAILURES; attempt += 1) {
      expect(await radclient(server.port, SECRET, { userName: user.username, password: 'WRONGWRONG' })).toBe(
        'Access-Reject',
      );
    }
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Reject',
    );
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    expect(await events(user.id, 'code.verify_lockout')).toHaveLength(1);
    const locked = await events(user.id, 'code.verify_locked');
    expect(locked).toHaveLength(1);
    expect(locked[0]?.actor).toBe('radius:127.0.0.1');
    await t.services.verification.unlock(user.id, 'operator', t.clock.now());
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Accept',
    );
  });

  it('does not answer a client that is not configured, nor one with the wrong secret', async () => {
    const { user, code } = await issuedCode(t);
    const other = await radiusFor(t, [['127.0.0.2', SECRET]]);
    try {
      expect(
        await radclient(
          other.port,
          SECRET,
          { userName: user.username, password: code },
          NO_REPLY_WAIT_SECONDS,
        ),
      ).toBe('no reply');
    } finally {
      await other.close();
    }
    expect(
      await radclient(
        server.port,
        `${SECRET}-not`,
        { userName: user.username, password: code },
        NO_REPLY_WAIT_SECONDS,
      ),
    ).toBe('no reply');
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.verify_failed' })).toHaveLength(
      0,
    );
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Accept',
    );
  });

  it('drops a request without Message-Authenticator and answers the same request with one', async () => {
    const { user, code } = await issuedCode(t);
    const request = (messageAuthenticator: boolean) =>
      encodeAccessRequest({
        identifier: 7,
        authenticator: randomBytes(16),
        userName: user.username,
        password: code,
        secret: SECRET,
        messageAuthenticator,
      });
    expect(await sendUdp(server.port, request(false))).toBeUndefined();
    expect(
      await radclient(
        server.port,
        SECRET,
        { userName: user.username, password: code, messageAuthenticator: false },
        NO_REPLY_WAIT_SECONDS,
      ),
    ).toBe('no reply');
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);

    const signed = request(true);
    const reply = await sendUdp(server.port, signed);
    const answer = reply && decodePacket(reply);
    const sent = decodePacket(signed);
    if (answer === undefined || sent === undefined) throw new Error('no answer');
    expect(answer.code).toBe(PacketCode.accessAccept);
    expect(answer.identifier).toBe(7);
    expect(isGenuineResponse(answer, sent, SECRET)).toBe(true);
    expect(isGenuineResponse(answer, sent, `${SECRET}x`)).toBe(false);
  });

  it('answers a retransmitted request with the first answer instead of verifying it again', async () => {
    const { user, code } = await issuedCode(t);
    const request = encodeAccessRequest({
      identifier: 9,
      authenticator: randomBytes(16),
      userName: user.username,
      password: code,
      secret: SECRET,
      messageAuthenticator: true,
    });
    const client = udpClient();
    const first = await client.send(server.port, request);
    const again = await client.send(server.port, request).finally(() => client.close());
    const later = udpClient();
    const third = await later.send(server.port, request).finally(() => later.close());
    expect(first && decodePacket(first)?.code).toBe(PacketCode.accessAccept);
    expect(again?.equals(first ?? Buffer.alloc(0))).toBe(true);
    // From another port it is another request: verified, and the code is used up by then.
    expect(third && decodePacket(third)?.code).toBe(PacketCode.accessReject);
    expect(await events(user.id, 'code.used')).toHaveLength(1);
    expect(await events(user.id, 'code.verify_failed')).toHaveLength(1);
  });

  it('verifies a request with the same Identifier and another Request Authenticator as a new request', async () => {
    const { user, code } = await issuedCode(t);
    const client = udpClient();
    try {
      const first = await client.send(server.port, accessRequest(11, user.username, code));
      const second = await client.send(server.port, accessRequest(11, user.username, code));
      expect(first && decodePacket(first)?.code).toBe(PacketCode.accessAccept);
      // A new request for a code used up by the first: verified, and rejected.
      expect(second && decodePacket(second)?.code).toBe(PacketCode.accessReject);
    } finally {
      client.close();
    }
    expect(await events(user.id, 'code.used')).toHaveLength(1);
    expect(await events(user.id, 'code.verify_failed')).toHaveLength(1);
  });

  it('keeps an answer for DEA_RADIUS_RETRANSMIT_SECONDS: a retransmission after it is verified anew', async () => {
    const { user, code } = await issuedCode(t);
    const request = accessRequest(12, user.username, code);
    const client = udpClient();
    try {
      const first = await client.send(server.port, request);
      t.clock.advance(t.services.config.radius.retransmissions.windowMs - 1);
      const within = await client.send(server.port, request);
      expect(within?.equals(first ?? Buffer.alloc(0))).toBe(true);
      expect(await events(user.id, 'code.verify_failed')).toHaveLength(0);
      t.clock.advance(1);
      const after = await client.send(server.port, request);
      expect(after && decodePacket(after)?.code).toBe(PacketCode.accessReject);
    } finally {
      client.close();
    }
    expect(await events(user.id, 'code.used')).toHaveLength(1);
    expect(await events(user.id, 'code.verify_failed')).toHaveLength(1);
  });

  it('is started from the configuration only when DEA_RADIUS_PORT is set', async () => {
    expect(await startRadius(t.services)).toBeUndefined();
    const probe = await radiusFor(t, []);
    const port = probe.port;
    await probe.close();
    const configured = await startRadius({
      ...t.services,
      config: {
        ...t.services.config,
        radius: {
          ...t.services.config.radius,
          port,
          host: '127.0.0.1',
          clients: new Map([['127.0.0.1', SECRET]]),
        },
      },
    });
    try {
      expect(configured?.port).toBe(port);
      const { user, code } = await issuedCode(t);
      expect(await radclient(port, SECRET, { userName: user.username, password: code })).toBe(
        'Access-Accept',
      );
    } finally {
      await configured?.close();
    }
  });
});

describe('RADIUS server with radclient on postgres', () => {
  let t: TestApp;
  let server: RadiusServer;
  beforeAll(async () => {
    t = await createTestApp('postgres');
    server = await radiusFor(t, [['127.0.0.1', SECRET]]);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it('accepts a fresh code once and rejects its reuse', async () => {
    const { user, code } = await issuedCode(t);
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Accept',
    );
    expect(await radclient(server.port, SECRET, { userName: user.username, password: code })).toBe(
      'Access-Reject',
    );
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.used' })).toHaveLength(1);
  });
});
