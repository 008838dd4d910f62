/**
 * What the test's own delivery peers (support/delivery-peers.ts, started by the global setup)
 * received, as the specs read it: every e-mail, SMS, voice call and direct message the server
 * sent, in arrival order. The peers run in the runner process; the workers ask them over HTTP
 * at DEA_E2E_PEERS_URL.
 */
export interface DeliveredMessage {
  /** Arrival number, from 1; a mark taken before an action picks out what came after it. */
  seq: number;
  via: 'smtp' | 'sms' | 'voice' | 'dm';
  /** The e-mail address, the phone number in international form ('+491705550112') or the @handle. */
  to: string;
  /** E-mail only: the decoded subject, and the HTML part. */
  subject: string;
  html: string;
  /** The plain text: the e-mail's text part, the gateway's message, the direct message's text. */
  text: string;
  /** Lower-case header names: SMTP message headers, or the HTTP request headers. */
  headers: Record<string, string>;
  /** What the peer answered: an HTTP status, or 250 for an accepted e-mail. */
  status: number;
}

/** The gateway answers 500 to every SMS for this number (the demo user's personal mobile). */
export const FAILING_SMS_RECIPIENT = '+491515550134';

/** Credentials the e2e server is configured with, and the peers insist on. */
export const SMS_GATEWAY_AUTHORIZATION = 'Bearer e2e-sms-gateway';

/**
 * The settings that send a server's SMS to the peers' gateway at that address: the global setup's
 * server has them, and so does a spec's own server (console-people.spec.ts).
 */
export function smsGatewaySettings(peersUrl: string): Record<string, string> {
  return {
    DEA_DELIVERY_SMS: 'http',
    DEA_SMS_HTTP_URL: `${peersUrl}/sms`,
    DEA_SMS_HTTP_HEADERS: JSON.stringify({ Authorization: SMS_GATEWAY_AUTHORIZATION }),
    DEA_SMS_HTTP_BODY: '{"to":"{recipient}","text":"{message}"}',
    DEA_SMS_HTTP_SUCCESS_BODY: '"status":\\s*"0"',
  };
}
export const VOICE_GATEWAY_AUTHORIZATION = 'Bearer e2e-voice-gateway';
export const X_API_TOKEN = 'e2e-x-token';

/** The X accounts the fake X API knows: handle (without @) to account id. */
export const X_ACCOUNTS: Readonly<Record<string, string>> = {
  chris_channel: '1000000000000000001',
  chrisc: '1000000000000000002',
};

/** A code of the default policy: ten characters of the alphabet without 0/O and 1/I. */
export const CODE_PATTERN = /\b[2-9A-HJ-NP-Z]{10}\b/;

export function peersUrl(): string {
  const url = process.env.DEA_E2E_PEERS_URL;
  if (!url) throw new Error('DEA_E2E_PEERS_URL is not set: the global setup starts the delivery peers');
  return url;
}

/** Everything the peers received so far. */
export async function delivered(): Promise<DeliveredMessage[]> {
  const response = await fetch(`${peersUrl()}/_peers/received`);
  if (!response.ok) throw new Error(`the delivery peers answered ${response.status}`);
  return (await response.json()) as DeliveredMessage[];
}

/** The arrival number of the last message so far: later messages have a greater one. */
export async function deliveryMark(): Promise<number> {
  return (await delivered()).reduce((last, message) => Math.max(last, message.seq), 0);
}

/** What arrived after the mark. */
export async function deliveredSince(mark: number): Promise<DeliveredMessage[]> {
  return (await delivered()).filter((message) => message.seq > mark);
}

/** The code in a message, written out ('Your code is ABC…') or spelled ('A, B, C, …'). */
export function codeIn(text: string): string | undefined {
  const written = CODE_PATTERN.exec(text)?.[0];
  if (written !== undefined) return written;
  const spelled = /\b(?:[2-9A-HJ-NP-Z], ){9}[2-9A-HJ-NP-Z]\b/.exec(text)?.[0];
  return spelled?.replace(/, /g, '');
}

/** Whether a text holds the code, written out or spelled for a voice call. */
export function holdsCode(text: string, code: string): boolean {
  return text.includes(code) || text.includes([...code].join(', '));
}
