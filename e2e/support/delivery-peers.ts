import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMail } from '../../apps/server/src/testing/mime';
import {
  type DeliveredMessage,
  FAILING_SMS_RECIPIENT,
  SMS_GATEWAY_AUTHORIZATION,
  VOICE_GATEWAY_AUTHORIZATION,
  X_ACCOUNTS,
  X_API_TOKEN,
  smsGatewaySettings,
} from './delivery';

/**
 * The far ends of delivery, as an operator would point the server at them: a real SMTP server
 * (no TLS, no authentication) and one local HTTP server that plays an SMS gateway (JSON), a voice
 * gateway (form-encoded, Twilio-like) and the X API v2 (user lookup and direct message). Both keep
 * what they receive; GET /_peers/received hands it to the specs.
 */
export interface DeliveryPeers {
  /** Where the specs read what was received. */
  url: string;
  /** The server settings that send every channel type to these peers. */
  serverEnv: Record<string, string>;
  stop: () => Promise<void>;
}

type Received = Omit<DeliveredMessage, 'seq'>;

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

function headersOf(incoming: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(incoming.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
}

function answer(response: ServerResponse, status: number, body: unknown): number {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return status;
}

function jsonObject(body: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export async function startDeliveryPeers(): Promise<DeliveryPeers> {
  const received: DeliveredMessage[] = [];
  const keep = (message: Received) => received.push({ seq: received.length + 1, ...message });

  const smtp = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
        const headers = Object.fromEntries(
          [...mail.headers].map(([name, values]) => [name, values.join(', ')]),
        );
        for (const recipient of session.envelope.rcptTo) {
          keep({
            via: 'smtp',
            to: recipient.address,
            subject: mail.subject,
            html: mail.html,
            text: mail.text,
            headers,
            status: 250,
          });
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const accountIds = new Map(Object.entries(X_ACCOUNTS).map(([handle, id]) => [id, handle]));
  const gateway = createServer((incoming, response) => {
    void readBody(incoming).then((body) => {
      const url = new URL(incoming.url ?? '/', 'http://peer');
      const headers = headersOf(incoming);
      const message = { subject: '', html: '', headers };
      const route = `${incoming.method ?? ''} ${url.pathname}`;

      if (route === 'GET /_peers/received') return answer(response, 200, received);

      if (route === 'POST /sms') {
        // A JSON SMS gateway: {"to": "+49…", "text": "…"}.
        const { to, text: sms } = jsonObject(body);
        const status =
          headers.authorization !== SMS_GATEWAY_AUTHORIZATION
            ? answer(response, 401, { error: 'unauthorized' })
            : to === FAILING_SMS_RECIPIENT
              ? answer(response, 500, { error: 'gateway failure' })
              : answer(response, 200, { status: '0' });
        return keep({ via: 'sms', to: text(to), text: text(sms), ...message, status });
      }

      if (route === 'POST /voice') {
        // A form-encoded voice gateway in the manner of Twilio's Calls API: To=…&Say=….
        const form = new URLSearchParams(body);
        const status =
          headers.authorization !== VOICE_GATEWAY_AUTHORIZATION
            ? answer(response, 401, { error: 'unauthorized' })
            : answer(response, 201, { sid: `CA${received.length}` });
        const to = form.get('To') ?? '';
        return keep({ via: 'voice', to, text: form.get('Say') ?? '', ...message, status });
      }

      const authorized = headers.authorization === `Bearer ${X_API_TOKEN}`;
      const lookup = /^GET \/x\/2\/users\/by\/username\/([^/]+)$/.exec(route);
      if (lookup) {
        // The X API v2 user lookup: not a message, so it is answered but not kept.
        const handle = decodeURIComponent(lookup[1] ?? '');
        const id = X_ACCOUNTS[handle];
        if (!authorized) return answer(response, 401, { title: 'Unauthorized' });
        if (id === undefined) return answer(response, 404, { errors: [{ title: 'Not Found Error' }] });
        return answer(response, 200, { data: { id, name: handle, username: handle } });
      }
      const dm = /^POST \/x\/2\/dm_conversations\/with\/([^/]+)\/messages$/.exec(route);
      if (dm) {
        const handle = accountIds.get(decodeURIComponent(dm[1] ?? ''));
        const status = !authorized
          ? answer(response, 401, { title: 'Unauthorized' })
          : handle === undefined
            ? answer(response, 403, { title: 'Forbidden' })
            : answer(response, 201, {
                data: { dm_conversation_id: `c${received.length}`, dm_event_id: `e${received.length}` },
              });
        const dmText = text(jsonObject(body).text);
        return keep({ via: 'dm', to: `@${handle ?? dm[1] ?? ''}`, text: dmText, ...message, status });
      }

      return answer(response, 404, { error: `no such endpoint: ${route}` });
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;

  return {
    url,
    serverEnv: {
      DEA_DELIVERY_EMAIL: 'smtp',
      DEA_SMTP_HOST: '127.0.0.1',
      DEA_SMTP_PORT: String(smtpPort),
      DEA_SMTP_SECURE: 'none',
      DEA_SMTP_FROM: 'Emergency Access <dea@e2e.example>',

      ...smsGatewaySettings(url),

      DEA_DELIVERY_VOICE: 'http',
      DEA_VOICE_HTTP_URL: `${url}/voice`,
      DEA_VOICE_HTTP_HEADERS: JSON.stringify({ Authorization: VOICE_GATEWAY_AUTHORIZATION }),
      DEA_VOICE_HTTP_CONTENT_TYPE: 'application/x-www-form-urlencoded',
      DEA_VOICE_HTTP_BODY: 'To={recipient}&Say={message}',
      DEA_VOICE_HTTP_SUCCESS_STATUS: '201',

      DEA_DELIVERY_TWITTER: 'twitter',
      DEA_TWITTER_API_URL: `${url}/x`,
      DEA_TWITTER_TOKEN: X_API_TOKEN,

      // Every other channel hears of each code (the specs check that no notice holds it).
      DEA_NOTIFY_OTHER_CHANNELS: 'true',
      // A failing gateway is retried twice, quickly, so the failure scenario stays short.
      DEA_DELIVERY_BACKOFF_MS: '50',
      // Room for the channel user's sends in one run (the demo policy's 5 unused codes still hold:
      // specs/channel-delivery.spec.ts keeps within them).
      DEA_SEND_LIMIT_PER_USER: '20',
    },
    stop: async () => {
      gateway.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => gateway.close(() => resolve())),
        new Promise<void>((resolve) => smtp.close(() => resolve())),
      ]);
    },
  };
}
