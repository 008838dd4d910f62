import { CONSOLE_OIDC_REFUSALS, CONSOLE_OIDC_REFUSED_FRAGMENT, type ConsoleOidcRefusal } from '@dea/contract';

/**
 * The console's address after a sign-in through the identity provider was refused:
 * /admin/#oidc-refused=<reason>. The reason is read once and taken off the address bar, so a
 * reload or a bookmark does not show it again.
 */
export function oidcRefusalOfAddress(): ConsoleOidcRefusal | undefined {
  const prefix = `#${CONSOLE_OIDC_REFUSED_FRAGMENT}=`;
  const { hash, pathname, search } = window.location;
  if (!hash.startsWith(prefix)) return undefined;
  window.history.replaceState(window.history.state, '', `${pathname}${search}`);
  const reason = hash.slice(prefix.length);
  return (CONSOLE_OIDC_REFUSALS as readonly string[]).includes(reason)
    ? (reason as ConsoleOidcRefusal)
    : 'provider-error';
}
