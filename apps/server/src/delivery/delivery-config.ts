import { readCaFile } from '../files/ca-file.js';
import type { SendType } from '@dea/contract';
import { type BodyEncoding, bodyEncodingOf, fillTemplate } from './body-template.js';
import { hasControlCharacters } from './control-characters.js';

/** How an SMTP connection is protected: none, upgraded with STARTTLS (required), or TLS from the start. */
export type TlsMode = 'none' | 'starttls' | 'tls';

export interface SmtpSettings {
  host: string;
  port: number;
  tls: TlsMode;
  /** Empty: no authentication. */
  user: string;
  password: string;
  /** The From header: an address, optionally with a display name ("Name <a@b.example>"). */
  from: string;
  /** PEM certificates of the CAs the server's certificate may chain to, besides the system's. */
  ca?: string | undefined;
}

/** An inclusive range of HTTP statuses that count as success. */
export interface StatusRange {
  from: number;
  to: number;
}

export interface HttpGatewaySettings {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers: Readonly<Record<string, string>>;
  bodyTemplate: string;
  contentType: string;
  encoding: BodyEncoding;
  successStatuses: readonly StatusRange[];
  /** When set, a success status is only a success when the body also matches. */
  successBody: RegExp | undefined;
}

export interface TwitterSettings {
  apiUrl: string;
  token: string;
}

export type ProviderChoice = 'outbox' | 'smtp' | 'http' | 'twitter' | 'off';

/** Timeout, retry and backoff of one message. */
export interface AttemptSettings {
  /** Longest wait for one attempt. */
  timeoutMs: number;
  /** Further attempts after a transient failure. */
  retries: number;
  /** Wait before the first retry; doubles for each further one (with jitter). */
  backoffMs: number;
  /** No attempt starts or runs past this time from the first: bounds the caller's wait. */
  deadlineMs: number;
}

export interface DeliveryConfig {
  /** Which provider delivers each send type; 'off' disables the type. */
  routes: Readonly<Record<SendType, ProviderChoice>>;
  smtp: SmtpSettings | undefined;
  http: Readonly<Partial<Record<GatewayType, HttpGatewaySettings>>>;
  twitter: TwitterSettings | undefined;
  attempt: AttemptSettings;
  /** International prefixes ('+49') a phone number must start with; empty: any. */
  allowedPhonePrefixes: readonly string[];
  notifyOtherChannels: boolean;
}

export type GatewayType = Exclude<SendType, 'smtp'>;

/** The setting prefix of each send type that can go through the generic HTTP gateway. */
export const GATEWAY_PREFIX = {
  sms: 'SMS',
  TELEPHONE: 'VOICE',
  TWITTER: 'TWITTER',
} as const satisfies Record<GatewayType, string>;
export type GatewayPrefix = (typeof GATEWAY_PREFIX)[GatewayType];

export const ROUTE_SETTING = {
  smtp: 'DEA_DELIVERY_EMAIL',
  sms: 'DEA_DELIVERY_SMS',
  TELEPHONE: 'DEA_DELIVERY_VOICE',
  TWITTER: 'DEA_DELIVERY_TWITTER',
} as const satisfies Record<SendType, string>;

/** Raw setting values by name, already type-checked by the settings schema. */
type Read = (name: string) => string;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Header names and values of a gateway come from the operator; still, no value may split a header. */
export function parseHeaders(text: string): { headers: Record<string, string> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'must be a JSON object of header names to string values' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'must be a JSON object of header names to string values' };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!HEADER_NAME.test(name)) return { problem: `header name ${JSON.stringify(name)} is not valid` };
    if (typeof value !== 'string' || hasControlCharacters(value)) {
      return { problem: `header ${name} must be a string without control characters` };
    }
    headers[name] = value;
  }
  return { headers };
}

/** '200-299', '2xx', '200,202' and mixes of them. */
export function parseStatusRanges(text: string): StatusRange[] | undefined {
  const ranges: StatusRange[] = [];
  for (const item of text.split(',').map((part) => part.trim())) {
    const family = /^([1-5])xx$/i.exec(item);
    const range = /^(\d{3})(?:-(\d{3}))?$/.exec(item);
    if (family) {
      const hundred = Number(family[1]) * 100;
      ranges.push({ from: hundred, to: hundred + 99 });
    } else if (range) {
      const from = Number(range[1]);
      const to = Number(range[2] ?? range[1]);
      if (from < 100 || to > 599 || to < from) return undefined;
      ranges.push({ from, to });
    } else {
      return undefined;
    }
  }
  return ranges;
}

export function parsePhonePrefixes(text: string): string[] {
  return text
    .split(',')
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== '');
}

function gatewaySettings(type: GatewayType, read: Read, problems: string[]): HttpGatewaySettings | undefined {
  const name = (field: string): string => `DEA_${GATEWAY_PREFIX[type]}_HTTP_${field}`;
  const url = read(name('URL'));
  if (url === '') return undefined;
  const headers = parseHeaders(read(name('HEADERS')));
  if ('problem' in headers) problems.push(`${name('HEADERS')}: ${headers.problem}`);
  const successStatuses = parseStatusRanges(read(name('SUCCESS_STATUS')));
  if (successStatuses === undefined) {
    problems.push(`${name('SUCCESS_STATUS')}: must be statuses or ranges such as 200-299, 2xx or 200,202`);
  }
  let successBody: RegExp | undefined;
  const pattern = read(name('SUCCESS_BODY'));
  try {
    successBody = pattern === '' ? undefined : new RegExp(pattern);
  } catch {
    problems.push(`${name('SUCCESS_BODY')}: is not a valid regular expression`);
  }
  const contentType = read(name('CONTENT_TYPE'));
  const encoding = bodyEncodingOf(contentType);
  const bodyTemplate = read(name('BODY'));
  if (encoding === 'json') {
    // Filled with awkward sample values, the template must still be JSON: a quote or brace
    // out of place would otherwise surface only when the first code is sent.
    try {
      JSON.parse(fillTemplate(bodyTemplate, { recipient: '"\\', message: '"}\n', subject: '{' }, 'json'));
    } catch {
      problems.push(
        `${name('BODY')}: with content type ${contentType} must be JSON (placeholders inside strings)`,
      );
    }
  }
  try {
    new URL(fillTemplate(url, { recipient: '+1', message: 'm', subject: 's' }, 'url'));
  } catch {
    problems.push(`${name('URL')}: is not a valid URL`);
  }
  return {
    url,
    method: read(name('METHOD')) as HttpGatewaySettings['method'],
    headers: 'headers' in headers ? headers.headers : {},
    bodyTemplate,
    contentType,
    encoding,
    successStatuses: successStatuses ?? [],
    successBody,
  };
}

const ADDRESS_IN_FROM = /^(?:[^<>\r\n]*<)?[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+>?$/;

/**
 * The delivery part of the configuration: which provider serves each type, and the settings of
 * every provider that is used. 'auto' picks what is configured, else the outbox, so a checkout
 * with no settings delivers to the outbox and a configured provider is never silently ignored.
 */
export function deliveryConfigOf(read: Read, problems: string[]): DeliveryConfig {
  const smtpHost = read('DEA_SMTP_HOST');
  const twitterToken = read('DEA_TWITTER_TOKEN');
  const http: Partial<Record<GatewayType, HttpGatewaySettings>> = {};
  for (const type of Object.keys(GATEWAY_PREFIX) as GatewayType[]) {
    const settings = gatewaySettings(type, read, problems);
    if (settings) http[type] = settings;
  }
  const choose = (type: SendType): ProviderChoice => {
    const chosen = read(ROUTE_SETTING[type]);
    if (chosen !== 'auto') return chosen as ProviderChoice;
    if (type === 'smtp') return smtpHost === '' ? 'outbox' : 'smtp';
    if (type === 'TWITTER' && twitterToken !== '') return 'twitter';
    return http[type] ? 'http' : 'outbox';
  };
  const routes = {
    smtp: choose('smtp'),
    sms: choose('sms'),
    TELEPHONE: choose('TELEPHONE'),
    TWITTER: choose('TWITTER'),
  };
  for (const [type, choice] of Object.entries(routes) as [SendType, ProviderChoice][]) {
    const setting = ROUTE_SETTING[type];
    if (choice === 'http' && type !== 'smtp' && http[type] === undefined) {
      problems.push(`${setting}: http needs DEA_${GATEWAY_PREFIX[type]}_HTTP_URL`);
    }
    if (choice === 'smtp' && smtpHost === '') problems.push(`${setting}: smtp needs DEA_SMTP_HOST`);
    if (choice === 'twitter' && twitterToken === '')
      problems.push(`${setting}: twitter needs DEA_TWITTER_TOKEN`);
  }
  const from = read('DEA_SMTP_FROM');
  if (routes.smtp === 'smtp' && (!ADDRESS_IN_FROM.test(from) || hasControlCharacters(from))) {
    problems.push(
      `DEA_SMTP_FROM=${JSON.stringify(from)}: must be an address such as "Emergency Access <dea@example.com>"`,
    );
  }
  const user = read('DEA_SMTP_USER');
  if (hasControlCharacters(`${user}${read('DEA_SMTP_PASSWORD')}`)) {
    problems.push('DEA_SMTP_USER/DEA_SMTP_PASSWORD: must not contain control characters');
  }
  const ca = readCaFile('DEA_SMTP_CA_FILE', read('DEA_SMTP_CA_FILE'), problems);
  return {
    routes,
    smtp:
      smtpHost === ''
        ? undefined
        : {
            host: smtpHost,
            port: Number(read('DEA_SMTP_PORT')),
            tls: read('DEA_SMTP_SECURE') as TlsMode,
            user,
            password: read('DEA_SMTP_PASSWORD'),
            from,
            ca,
          },
    http,
    twitter: twitterToken === '' ? undefined : { apiUrl: read('DEA_TWITTER_API_URL'), token: twitterToken },
    attempt: {
      timeoutMs: Number(read('DEA_DELIVERY_TIMEOUT_MS')),
      retries: Number(read('DEA_DELIVERY_RETRIES')),
      backoffMs: Number(read('DEA_DELIVERY_BACKOFF_MS')),
      deadlineMs: Number(read('DEA_DELIVERY_DEADLINE_MS')),
    },
    allowedPhonePrefixes: parsePhonePrefixes(read('DEA_ALLOWED_PHONE_PREFIXES')),
    notifyOtherChannels: read('DEA_NOTIFY_OTHER_CHANNELS') === 'true',
  };
}
