import { hasControlCharacter } from './control-characters';

/**
 * Where "back to login" may go: only a URL on the page's own host (spec sections 2 and 5), and
 * with the page's own scheme, so a crafted link cannot send a user who just logged out to a
 * look-alike login page or out of TLS.
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
  const protocol = scheme ? `${scheme.toLowerCase()}:` : page.protocol;
  let url: URL;
  try {
    url = new URL(`${protocol}//${hostName}${port ? `:${port}` : ''}${path}${query}${fragment}`);
  } catch {
    return undefined;
  }
  const sameHost = url.host === page.host.toLowerCase();
  // A scheme change is refused too: an http target from an https page would leave TLS.
  const sameScheme = url.protocol === page.protocol.toLowerCase();
  const plain = url.username === '' && url.password === '';
  return sameHost && sameScheme && plain ? url.href : undefined;
}
