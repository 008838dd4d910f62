import { hasControlCharacter } from './control-characters';

/**
 * Where "back to login" may go: only a URL on the page's own host (spec sections 2 and 5), so a
 * crafted link cannot send a user who just logged out to a look-alike login page.
 *
 * The scheme never leaves TLS (ADR 0040): a value without one takes the page's; https is followed
 * from any page; http from an https page is followed as https, on the same host and port. A
 * server behind a TLS-terminating proxy that it does not trust for X-Forwarded-Proto sees plain
 * http and names its login address so; the page, on https, still goes there, encrypted.
 *
 * The value must match a plain URL shape: an optional http/https scheme, a host name or IP
 * address, an optional port, then an optional path, query and fragment. Nothing else is allowed
 * in the host part: no user info ('a@'), no percent-escapes, no backslashes, no whitespace. The
 * answer is a URL rebuilt from those parts, never the raw value, so a browser's lenient parsing
 * of the original string cannot come into play.
 */
const URL_SHAPE =
  /^(?:(https?):\/\/)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?(\/[^\s\\]*)?(\?[^\s\\#]*)?(#[^\s\\]*)?$/i;

export interface PageHost {
  protocol: string;
  host: string;
}

export function safeReturnUrl(candidate: string | null | undefined, page: PageHost): string | undefined {
  if (!candidate) return undefined;
  if (hasControlCharacter(candidate)) return undefined;
  const match = URL_SHAPE.exec(candidate);
  if (!match) return undefined;
  const [, scheme, hostName = '', port, path = '/', query = '', fragment = ''] = match;
  const given = scheme ? `${scheme.toLowerCase()}:` : page.protocol.toLowerCase();
  // Never from https to http: the page's TLS is kept.
  const protocol = page.protocol.toLowerCase() === 'https:' ? 'https:' : given;
  let url: URL;
  try {
    url = new URL(`${protocol}//${hostName}${port ? `:${port}` : ''}${path}${query}${fragment}`);
  } catch {
    return undefined;
  }
  // The host as the value names it (an http URL's port 80 is its default, as https's 443).
  let named: URL;
  try {
    named = new URL(`${given}//${hostName}${port ? `:${port}` : ''}/`);
  } catch {
    return undefined;
  }
  const sameHost = named.host === page.host.toLowerCase() && url.host === page.host.toLowerCase();
  const plain = url.username === '' && url.password === '';
  return sameHost && plain ? url.href : undefined;
}
