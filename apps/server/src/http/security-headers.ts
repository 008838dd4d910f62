import { PAGE_BASE_PATH } from '@dea/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_WITHOUT_SESSION_SCRIPT_HASH } from '../routes/page-without-session.js';

/**
 * Headers of every answer. Styles allow inline because the branding CSS entry is applied as a
 * style block (spec section 3); scripts come only from this origin, besides the one inline script
 * of the page's HTML without a session (routes/page-without-session.ts), allowed by its hash. Images come from this origin,
 * data: URLs and the origins the operator names (DEA_CSP_IMAGE_ORIGINS): branding CSS cannot
 * send anything read from the page to a host of its choosing.
 */
export function contentSecurityPolicy(imageOrigins: readonly string[]): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${PAGE_WITHOUT_SESSION_SCRIPT_HASH}`,
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

/**
 * The built page's scripts and style sheets (`/dea/assets/*.js`, `*.css`). The headers that govern
 * a document (its policy, permissions, framing, opener) mean nothing on them, and a phone would
 * receive some 560 bytes of them per file (issue 37); nosniff and the referrer policy (which a
 * style sheet's own requests follow) stay. Everything else, SVG images included, carries them all.
 */
export function isScriptOrStyleSheet(url: string): boolean {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  return path.startsWith(`${PAGE_BASE_PATH}assets/`) && /\.(js|css)$/.test(path);
}

export function securityHeaders(imageOrigins: readonly string[]) {
  const policy = contentSecurityPolicy(imageOrigins);
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ): void => {
    void reply
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-request-id', request.id);
    if (!isScriptOrStyleSheet(request.url))
      void reply
        .header('content-security-policy', policy)
        .header('permissions-policy', PERMISSIONS_POLICY)
        .header('x-frame-options', 'DENY')
        .header('cross-origin-opener-policy', 'same-origin');
    // Only an answer that went over TLS may set it (RFC 6797 section 7.2).
    if (request.protocol === 'https')
      void reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    done(null, payload);
  };
}
