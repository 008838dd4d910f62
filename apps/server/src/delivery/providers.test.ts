import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refusedPort, startHttpPeer, type HttpPeer } from '../testing/http-peer.js';
import { loadConfig } from '../config.js';
import { createPrivateCa, type PrivateCa } from '../testing/private-ca.js';
import { startSmtpPeer, type SmtpPeer } from '../testing/smtp-peer.js';
import { bodyEncodingOf } from './body-template.js';
import type { HttpGatewaySettings } from './delivery-config.js';
import type { OutgoingMessage } from './delivery.js';
import { httpGatewayProvider } from './http-gateway-provider.js';
import { smtpProvider } from './smtp-provider.js';
import { twitterProvider } from './twitter-provider.js';

const MESSAGE: OutgoingMessage = {
  channelType: 'smtp',
  recipient: 'chris.channel@example.com',
  subject: 'Ihr Notfallcode',
  text: 'Ihr Notfallcode lautet K7M2P9X4QA. Er ist gültig bis 21.11.2026, 09:15 UTC.',
  html: '<!doctype html><p>Ihr Notfallcode lautet <strong>K7M2P9X4QA</strong></p>',
  language: 'de',
  userId: 'user-1',
  idempotencyKey: '0193a0c4-1111-7000-8000-000000000001',
};

describe('SMTP through a relay whose certificate comes from a private CA', () => {
  let ca: PrivateCa;
  let peer: SmtpPeer;
  beforeAll(async () => {
    ca = createPrivateCa();
    peer = await startSmtpPeer({ tls: { key: ca.key, cert: ca.cert } });
  });
  afterAll(async () => {
    await peer.close();
    ca.dispose();
  });
  const starttls = (caPem: string | undefined) =>
    smtpProvider(
      {
        host: '127.0.0.1',
        port: peer.port,
        tls: 'starttls',
        user: '',
        password: '',
        from: 'dea@example.com',
        ca: caPem,
      },
      3000,
    );

  it('fails without the CA, naming the certificate problem, and delivers over STARTTLS with DEA_SMTP_CA_FILE', async () => {
    const refused = await starttls(undefined).deliver(MESSAGE);
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { reason: string }).reason).toMatch(/CERT|certificate|SELF_SIGNED|UNABLE/i);
    const config = loadConfig({
      DEA_SMTP_HOST: '127.0.0.1',
      DEA_SMTP_FROM: 'dea@example.com',
      DEA_SMTP_CA_FILE: ca.caFile,
    });
    expect(await starttls(config.delivery.smtp?.ca).deliver(MESSAGE)).toMatchObject({ ok: true });
    expect(peer.received.at(-1)?.to).toEqual(['chris.channel@example.com']);
  });

  it('names a CA file it cannot read, or one without a certificate, at start', () => {
    expect(() =>
      loadConfig({
        DEA_SMTP_HOST: 'x',
        DEA_SMTP_FROM: 'a@b.example',
        DEA_SMTP_CA_FILE: '/nonexistent/ca.pem',
      }),
    ).toThrow('DEA_SMTP_CA_FILE="/nonexistent/ca.pem": cannot read it (ENOENT)');
    expect(() =>
      loadConfig({
        DEA_SMTP_HOST: 'x',
        DEA_SMTP_FROM: 'a@b.example',
        DEA_SMTP_CA_FILE: ca.caFile.replace('ca.pem', 'san.ext'),
      }),
    ).toThrow('holds no PEM certificate');
  });
});

describe('SMTP provider against a real SMTP server', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer({ users: { dea: 'secret' } });
  });
  afterAll(() => peer.close());
  afterEach(() => peer.rejectRecipients(undefined));
  const provider = (port = peer.port) =>
    smtpProvider(
      {
        host: '127.0.0.1',
        port,
        tls: 'none',
        user: 'dea',
        password: 'secret',
        from: 'Emergency Access <dea@example.com>',
      },
      2000,
    );

  it('delivers subject, text and HTML, with the idempotency key as Message-ID', async () => {
    const result = await provider().deliver(MESSAGE);
    expect(result).toMatchObject({ ok: true });
    const mail = peer.received.at(-1);
    expect(mail?.to).toEqual(['chris.channel@example.com']);
    expect(mail?.from).toBe('dea@example.com');
    expect(mail?.subject).toBe('Ihr Notfallcode');
    expect(mail?.text).toBe(MESSAGE.text);
    expect(mail?.html).toContain('<strong>K7M2P9X4QA</strong>');
    expect(mail?.header('message-id')).toBe(`<${MESSAGE.idempotencyKey}@example.com>`);
  });

  it('lets no value add a header or a recipient', async () => {
    const before = peer.received.length;
    const injected = await provider().deliver({
      ...MESSAGE,
      subject: 'Hello\r\nBcc: attacker@evil.example\r\nX-Injected: yes',
    });
    expect(injected.ok).toBe(true);
    const mail = peer.received.at(-1);
    expect(mail?.to).toEqual(['chris.channel@example.com']);
    expect(mail?.headers.has('bcc')).toBe(false);
    expect(mail?.headers.has('x-injected')).toBe(false);
    expect(mail?.subject).toBe('Hello Bcc: attacker@evil.example X-Injected: yes');
    for (const recipient of [
      'chris@example.com\r\nBcc: attacker@evil.example',
      'chris@example.com, attacker@evil.example',
      'Chris <chris@example.com>',
    ]) {
      expect(await provider().deliver({ ...MESSAGE, recipient })).toEqual({
        ok: false,
        transient: false,
        reason: 'recipient is not one e-mail address',
      });
    }
    expect(peer.received.length).toBe(before + 1);
  });

  it('classifies refusals: 550 permanent, 451 transient, without quoting the address', async () => {
    peer.rejectRecipients(550);
    const permanent = await provider().deliver(MESSAGE);
    expect(permanent).toMatchObject({ ok: false, transient: false });
    expect(JSON.stringify(permanent)).not.toContain('chris');
    peer.rejectRecipients(451);
    expect(await provider().deliver(MESSAGE)).toMatchObject({ ok: false, transient: true });
  });

  it('answers a refused connection as transient', async () => {
    const result = await provider(await refusedPort()).deliver(MESSAGE);
    expect(result).toMatchObject({ ok: false, transient: true });
    if (!result.ok) expect(result.reason).toMatch(/^SMTP E\w+/);
  });

  it('refuses wrong credentials as permanent', async () => {
    const wrong = smtpProvider(
      {
        host: '127.0.0.1',
        port: peer.port,
        tls: 'none',
        user: 'dea',
        password: 'wrong',
        from: 'dea@example.com',
      },
      2000,
    );
    expect(await wrong.deliver(MESSAGE)).toMatchObject({ ok: false, transient: false });
  });
});

function gateway(url: string, overrides: Partial<HttpGatewaySettings> = {}): HttpGatewaySettings {
  const contentType = overrides.contentType ?? 'application/json';
  return {
    url,
    method: 'POST',
    headers: { authorization: 'Bearer gateway-token' },
    bodyTemplate: '{"to":"{recipient}","text":"{message}"}',
    contentType,
    encoding: bodyEncodingOf(contentType),
    successStatuses: [{ from: 200, to: 299 }],
    successBody: undefined,
    ...overrides,
  };
}

describe('HTTP gateway provider against a real HTTP server', () => {
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await startHttpPeer();
  });
  afterAll(() => peer.close());
  afterEach(() => peer.answer(() => ({ status: 200, body: '{"ok":true}' })));
  const sms = {
    ...MESSAGE,
    channelType: 'sms' as const,
    recipient: '+49 170 5550112',
    text: 'Code "K7" \\ <b>&\nnext',
  };

  it('fills a JSON body template with escaped values and sends the Idempotency-Key', async () => {
    expect(await httpGatewayProvider('http-sms', gateway(`${peer.url}/sms`)).deliver(sms)).toMatchObject({
      ok: true,
    });
    const request = peer.received.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/sms');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer gateway-token');
    expect(request?.headers['idempotency-key']).toBe(MESSAGE.idempotencyKey);
    expect(JSON.parse(request?.body ?? '')).toEqual({ to: '+491705550112', text: sms.text });
  });

  it('form-encodes values for application/x-www-form-urlencoded and fills the URL', async () => {
    const settings = gateway(`${peer.url}/Accounts/AC1/Messages.json?to={recipient}`, {
      contentType: 'application/x-www-form-urlencoded',
      bodyTemplate: 'To={recipient}&From=%2B15005550006&Body={message}&Digits={recipientDigits}',
    });
    expect(
      await httpGatewayProvider('http-sms', settings).deliver({ ...sms, text: 'a&b=c+d ä' }),
    ).toMatchObject({ ok: true });
    const request = peer.received.at(-1);
    expect(request?.url).toBe('/Accounts/AC1/Messages.json?to=%2B491705550112');
    const form = new URLSearchParams(request?.body);
    expect([...form.keys()]).toEqual(['To', 'From', 'Body', 'Digits']);
    expect(form.get('Digits')).toBe('491705550112');
    expect(form.get('To')).toBe('+491705550112');
    expect(form.get('Body')).toBe('a&b=c+d ä');
  });

  it('checks the status and, when configured, the body', async () => {
    const strict = httpGatewayProvider('http-sms', gateway(peer.url, { successBody: /"status":"0"/ }));
    peer.answer(() => ({ status: 200, body: '{"messages":[{"status":"0"}]}' }));
    expect(await strict.deliver(sms)).toMatchObject({ ok: true });
    peer.answer(() => ({ status: 200, body: '{"messages":[{"status":"4"}]}' }));
    expect(await strict.deliver(sms)).toMatchObject({ ok: false, transient: false });
    const plain = httpGatewayProvider('http-sms', gateway(peer.url));
    for (const [status, transient] of [
      [500, true],
      [503, true],
      [429, true],
      [400, false],
      [401, false],
      [302, false],
    ] as const) {
      peer.answer(() => ({ status, body: 'echo of K7' }));
      expect(await plain.deliver(sms)).toEqual({ ok: false, transient, reason: `HTTP ${status}` });
    }
  });

  it('answers a refused connection and an aborted attempt as transient', async () => {
    const refused = httpGatewayProvider('http-sms', gateway(`http://127.0.0.1:${await refusedPort()}/`));
    expect(await refused.deliver(sms)).toEqual({
      ok: false,
      transient: true,
      reason: 'network error ECONNREFUSED',
    });
    peer.answer(() => 'hang');
    const hanging = httpGatewayProvider('http-sms', gateway(peer.url));
    expect(await hanging.deliver(sms, { signal: AbortSignal.timeout(100) })).toEqual({
      ok: false,
      transient: true,
      reason: 'timeout',
    });
  });

  it('sends an X direct message: looks up the handle, then posts the text', async () => {
    peer.answer((request) =>
      request.url.startsWith('/2/users/by/username/')
        ? { status: 200, body: '{"data":{"id":"2244994945","username":"chris_channel"}}' }
        : { status: 201, body: '{"data":{"dm_conversation_id":"1-2","dm_event_id":"1582838223010"}}' },
    );
    const before = peer.received.length;
    const result = await twitterProvider({ apiUrl: `${peer.url}/`, token: 'x-token' }).deliver({
      ...MESSAGE,
      channelType: 'TWITTER',
      recipient: '@chris_channel',
      text: 'Your code is "K7"',
    });
    expect(result).toEqual({ ok: true, providerMessageId: '1582838223010' });
    const [lookup, dm] = peer.received.slice(before);
    expect(lookup?.method).toBe('GET');
    expect(lookup?.url).toBe('/2/users/by/username/chris_channel');
    expect(dm?.method).toBe('POST');
    expect(dm?.url).toBe('/2/dm_conversations/with/2244994945/messages');
    expect(dm?.headers.authorization).toBe('Bearer x-token');
    expect(dm?.headers['idempotency-key']).toBe(MESSAGE.idempotencyKey);
    expect(JSON.parse(dm?.body ?? '')).toEqual({ text: 'Your code is "K7"' });
  });
});
