import { PAGE_BASE_PATH } from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers of every answer. Styles allow inline because the branding CSS entry is applied as a
 * style block (spec section 3); scripts come only from this origin, besides the inline scripts
 * whose hashes the application names (the page's HTML without a session runs one,
 * routes/page-without-session.ts). Images come from this origin,
 * data: URLs and the origins the operator names (DEA_CSP_IMAGE_ORIGINS): branding CSS cannot
 * send anything read from the page to a host of its choosing.
 */
export function contentSecurityPolicy(
  imageOrigins: readonly string[],
  inlineScriptHashes: readonly string[],
): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...inlineScriptHashes].join(' '),
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' data:", ...imageOrigins].join(' '),
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Powerful features no page of the product uses. */
const PERMISSIONS_POLICY = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ');

/** A year: browsers keep to HTTPS for this host once they have seen it over TLS. */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

const ASSETS_PATH = `${PAGE_BASE_PATH}assets/`;

/**
 * The built page's scripts and style sheets (`/dea/assets/*.js`, `*.css`). The headers that govern
 * a document (its policy, permissions, framing, opener) mean nothing on them, and a phone would
 * receive some 560 bytes of them per file; nosniff and the referrer policy (which a
 * style sheet's own requests follow) stay. A JSON answer carries its own short policy (JSON_ANSWER_POLICY); everything else, SVG images
 * included, carries them all.
 * Asked of every answer: a URL outside the assets is told by its start, without a regex.
 */
export function isScriptOrStyleSheet(url: string): boolean {
  if (!url.startsWith(ASSETS_PATH)) return false;
  let end = url.length;
  for (const mark of ['?', '#']) {
    const at = url.indexOf(mark);
    if (at !== -1 && at < end) end = at;
  }
  return url.endsWith('.js', end) || url.endsWith('.css', end);
}

/**
 * The policy of a JSON answer: nothing in it may load or run, and no page may frame it. A JSON
 * answer is never a page, so the page's policy (its scripts, styles, images), the permissions
 * policy and the opener policy, which govern a document, would be some 420 bytes a call for
 * nothing (a sign-in and a code on a slow phone); the frame and sniffing rules stay.
 */
export const JSON_ANSWER_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** A JSON answer, told by its content type (application/json, with or without a charset). */
export function isJsonAnswer(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.startsWith('application/json');
}

/** The headers of each kind of answer, each a list of name and value. */
export interface SecurityHeaderSets {
  document: readonly (readonly [string, string])[];
  scriptOrStyleSheet: readonly (readonly [string, string])[];
  jsonAnswer: readonly (readonly [string, string])[];
  /** Added to either over TLS only (RFC 6797 section 7.2). */
  tls: readonly (readonly [string, string])[];
}

/** Computed once, when the application is built: every answer only copies its kind's values. */
export function securityHeaderSets(
  imageOrigins: readonly string[],
  inlineScriptHashes: readonly string[],
): SecurityHeaderSets {
  const scriptOrStyleSheet = [
    ['x-content-type-options', 'nosniff'],
    ['referrer-policy', 'same-origin'],
  ] as const;
  return Object.freeze({
    scriptOrStyleSheet: Object.freeze(scriptOrStyleSheet),
    jsonAnswer: Object.freeze([
      ...scriptOrStyleSheet,
      ['content-security-policy', JSON_ANSWER_POLICY],
      ['x-frame-options', 'DENY'],
    ] as const),
    document: Object.freeze([
      ...scriptOrStyleSheet,
      ['content-security-policy', contentSecurityPolicy(imageOrigins, inlineScriptHashes)],
      ['permissions-policy', PERMISSIONS_POLICY],
      ['x-frame-options', 'DENY'],
      ['cross-origin-opener-policy', 'same-origin'],
    ] as const),
    tls: Object.freeze([['strict-transport-security', STRICT_TRANSPORT_SECURITY]] as const),
  });
}

/**
 * The onSend hook of every answer: its kind's headers (a script or style sheet, a JSON answer, any
 * other answer), computed once (securityHeaderSets), and the request id. The HSTS header only on an answer that went over TLS.
 */
export function securityHeaders(imageOrigins: readonly string[], inlineScriptHashes: readonly string[]) {
  const sets = securityHeaderSets(imageOrigins, inlineScriptHashes);
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ): void => {
    const headers = isScriptOrStyleSheet(request.url)
      ? sets.scriptOrStyleSheet
      : isJsonAnswer(reply.getHeader('content-type'))
        ? sets.jsonAnswer
        : sets.document;
    for (const [name, value] of headers) void reply.header(name, value);
    void reply.header('x-request-id', request.id);
    if (request.protocol === 'https') for (const [name, value] of sets.tls) void reply.header(name, value);
    done(null, payload);
  };
}
