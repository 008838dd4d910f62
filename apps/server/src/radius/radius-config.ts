import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import Type from 'typebox';
import { BUILT_IN_ATTRIBUTES, Dictionary, type DictionaryAttribute, parseDictionary } from './dictionary.js';

export interface RadiusConfig {
  /** UDP port; 0: no RADIUS server. */
  port: number;
  host: string;
  /** Shared secret per client address (normalized, see clientAddress). */
  clients: ReadonlyMap<string, string>;
  /** The attributes groups may have an Access-Accept carry, by name. */
  dictionary: Dictionary;
  /** The Reply-Message of every Access-Reject; undefined: none. */
  rejectMessage: string | undefined;
  /** How long an answer is kept for a client's retransmission, and how many at most. */
  retransmissions: { windowMs: number; max: number };
}

/** Long random secrets are what keeps RADIUS's MD5-based protection meaningful. */
export const MIN_RADIUS_SECRET_LENGTH = 16;

export const radiusSettings = {
  DEA_RADIUS_PORT: {
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 0 }),
    doc: 'UDP port of the RADIUS server (1812 is the usual one); 0: no RADIUS server.',
  },
  DEA_RADIUS_HOST: {
    schema: Type.String({ minLength: 1, default: '0.0.0.0' }),
    doc: 'IP address the RADIUS server listens on (:: for IPv6 and IPv4).',
  },
  DEA_RADIUS_CLIENTS: {
    schema: Type.String({ default: '' }),
    doc: `RADIUS clients and their shared secrets (at least ${MIN_RADIUS_SECRET_LENGTH} characters, never logged): ip=secret,ip2=secret2 or a JSON object {"ip":"secret"}; requests from other addresses are dropped. Required with DEA_RADIUS_PORT.`,
  },
  DEA_RADIUS_DICTIONARY: {
    schema: Type.String({ default: '' }),
    doc: "Dictionary files in FreeRADIUS's format (comma-separated paths, e.g. /usr/share/freeradius/dictionary.juniper) naming more attributes a group's Access-Accept may carry, besides the built-in RFC 2865 and common VPN vendor ones; read at start.",
  },
  DEA_RADIUS_REJECT_MESSAGE: {
    schema: Type.String({ maxLength: 253, default: '' }),
    doc: 'A Reply-Message for every Access-Reject (the same whatever the reason, e.g. "Wrong or used code"); empty: none, the default, so a reject tells nothing.',
  },
  DEA_RADIUS_RETRANSMIT_SECONDS: {
    schema: Type.Integer({ minimum: 1, maximum: 600, default: 30 }),
    doc: "How long each instance keeps a RADIUS answer in its memory for the client's retransmission (same address, port, Identifier and Request Authenticator, RFC 5080 section 2.2.2), which gets the same answer instead of a second verification; longer than the client's retries (FreeRADIUS home servers: response_window 30 s).",
  },
  DEA_RADIUS_RETRANSMIT_MAX: {
    schema: Type.Integer({ minimum: 100, maximum: 1_000_000, default: 10_000 }),
    doc: 'Most RADIUS answers kept for retransmissions per instance (about 200 bytes each); when full, the oldest is forgotten first, and its retransmission is verified anew.',
  },
} as const;

/** One spelling per address: an IPv4 client seen on a dual-stack socket as ::ffff:a.b.c.d is a.b.c.d. */
export function clientAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped?.[1] ?? address).toLowerCase();
}

function clientEntries(text: string): [string, unknown][] | string {
  if (text.startsWith('{') || text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return 'is not valid JSON';
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return 'must be a JSON object';
    return Object.entries(parsed);
  }
  const entries: [string, unknown][] = [];
  for (const pair of text.split(',')) {
    const separator = pair.indexOf('=');
    if (separator === -1) return `"${pair.trim().slice(0, 45)}" must read ip=secret`;
    entries.push([pair.slice(0, separator).trim(), pair.slice(separator + 1).trim()]);
  }
  return entries;
}

/**
 * Reads `ip=secret,ip2=secret2` or `{"ip":"secret"}`. Problems name the address, never a secret.
 */
export function parseRadiusClients(text: string): { clients: Map<string, string>; problems: string[] } {
  const clients = new Map<string, string>();
  const trimmed = text.trim();
  if (trimmed === '') return { clients, problems: [] };
  const entries = clientEntries(trimmed);
  if (typeof entries === 'string') return { clients, problems: [`DEA_RADIUS_CLIENTS: ${entries}`] };
  const problems: string[] = [];
  for (const [address, secret] of entries) {
    const shown = JSON.stringify(address.slice(0, 45));
    if (isIP(address) === 0) {
      problems.push(`DEA_RADIUS_CLIENTS: ${shown} is not an IP address`);
    } else if (typeof secret !== 'string' || secret.length < MIN_RADIUS_SECRET_LENGTH) {
      problems.push(
        `DEA_RADIUS_CLIENTS: the secret of ${shown} must be a text of at least ${MIN_RADIUS_SECRET_LENGTH} characters`,
      );
    } else if (clients.has(clientAddress(address))) {
      problems.push(`DEA_RADIUS_CLIENTS: ${shown} is listed twice`);
    } else {
      clients.set(clientAddress(address), secret);
    }
  }
  return { clients, problems };
}

/** The RADIUS part of the configuration; adds a line per problem to `problems`. */
export function radiusConfigOf(setting: (name: string) => string, problems: string[]): RadiusConfig {
  const port = Number(setting('DEA_RADIUS_PORT')) || 0;
  const host = setting('DEA_RADIUS_HOST');
  if (isIP(host) === 0) problems.push(`DEA_RADIUS_HOST=${JSON.stringify(host)}: must be an IP address`);
  const parsed = parseRadiusClients(setting('DEA_RADIUS_CLIENTS'));
  problems.push(...parsed.problems);
  if (port > 0 && parsed.clients.size === 0 && parsed.problems.length === 0) {
    problems.push('DEA_RADIUS_CLIENTS: required when DEA_RADIUS_PORT is set');
  }
  const dictionary = new Dictionary([
    ...BUILT_IN_ATTRIBUTES,
    ...setting('DEA_RADIUS_DICTIONARY')
      .split(',')
      .map((path) => path.trim())
      .filter((path) => path !== '')
      .flatMap((path) => dictionaryFile(path, problems)),
  ]);
  const rejectMessage = setting('DEA_RADIUS_REJECT_MESSAGE');
  const retransmissions = {
    windowMs: (Number(setting('DEA_RADIUS_RETRANSMIT_SECONDS')) || 30) * 1000,
    max: Number(setting('DEA_RADIUS_RETRANSMIT_MAX')) || 10_000,
  };
  return {
    port,
    host,
    clients: parsed.clients,
    dictionary,
    rejectMessage: rejectMessage === '' ? undefined : rejectMessage,
    retransmissions,
  };
}

function dictionaryFile(path: string, problems: string[]): DictionaryAttribute[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(
      `DEA_RADIUS_DICTIONARY: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return [];
  }
  return parseDictionary(path, text, problems);
}
