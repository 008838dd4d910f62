/**
 * privacyIDEA's plugins do not all send `/validate/check` form fields alike. Its FreeRADIUS plugin
 * (User-Agent `FreeRADIUS`) percent-encodes `user` and `pass` itself and its HTTP library
 * form-encodes the result again, so `jürgen` arrives as `j%C3%BCrgen` once the form is read, and a
 * code typed `UF2 AJF MFWQ` as `UF2%20AJF%20MFWQ`. privacyIDEA percent-decodes every form field once
 * more (Python's `urllib.parse.unquote`) for every client but three it names by User-Agent, and for
 * a request without one; a JSON body is taken as it is. This module is that rule (ADR 0035).
 */

/**
 * The User-Agent names whose form fields privacyIDEA takes as they come (its Windows credential
 * provider, its LDAP proxy, its SimpleSAMLphp plugin), compared in lower case.
 */
const SENT_ONCE = new Set(['privacyidea-cp', 'privacyidea-ldap-proxy', 'simplesamlphp']);

/**
 * The product name of a User-Agent as privacyIDEA reads it: the letters, digits, `_` and `-` it
 * starts with (`privacyIDEA-LDAP-Proxy/1.0` names `privacyIDEA-LDAP-Proxy`); empty when it starts
 * with anything else or is missing.
 */
export function agentName(userAgent: string | undefined): string {
  return /^[A-Za-z0-9_-]+/.exec(userAgent ?? '')?.[0] ?? '';
}

/** Whether privacyIDEA percent-decodes a form's fields once more for this User-Agent. */
export function decodesFormTwice(userAgent: string | undefined): boolean {
  return !SENT_ONCE.has(agentName(userAgent).toLowerCase());
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** The bytes of a run of ASCII characters with each `%` and two hex digits taken as one byte. */
function bytesOf(ascii: string): Uint8Array {
  const bytes: number[] = [];
  for (let index = 0; index < ascii.length; index += 1) {
    const pair = ascii.slice(index + 1, index + 3);
    if (ascii[index] === '%' && HEX_PAIR.test(pair)) {
      bytes.push(Number.parseInt(pair, 16));
      index += 2;
    } else bytes.push(ascii.charCodeAt(index));
  }
  return Uint8Array.from(bytes);
}

/**
 * Percent-decoded as Python's `urllib.parse.unquote` decodes (privacyIDEA's second decoding):
 * each run of ASCII characters has every `%XY` taken as a byte and is read as UTF-8, a byte that
 * is no valid UTF-8 read as U+FFFD; a `%` without two hex digits after it stays, as does every
 * character beyond ASCII; `+` stays `+`.
 */
export function unquoted(text: string): string {
  if (!text.includes('%')) return text;
  // Each run of ASCII characters (whatever is not beyond ASCII), as Python splits the text.
  return text.replace(/[^\u0080-\uffff]+/g, (ascii) => utf8.decode(bytesOf(ascii)));
}

/**
 * A request body's fields as privacyIDEA reads them: a form's decoded once more for the clients
 * it decodes twice, a JSON body's as they are.
 */
export function fieldsAsPrivacyIdeaReads(
  body: unknown,
  contentType: string | undefined,
  userAgent: string | undefined,
): unknown {
  const form =
    (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
  if (!form || typeof body !== 'object' || body === null || !decodesFormTwice(userAgent)) return body;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([name, value]) => [
      name,
      typeof value === 'string' ? unquoted(value) : value,
    ]),
  );
}
