import { CONSOLE_ENROLMENT_FRAGMENT } from '@dea/contract';

const STORAGE_KEY = 'dea-console-enrolment';

/**
 * The console's address after `dea admin add` or `dea admin reset-passkeys`: /admin/#enrol=<token>.
 * The token is kept for this tab only (the password step comes first) and taken off the address
 * bar at once, so it is neither bookmarked nor read by the console's hash routes. Answers whether
 * a link was opened in this tab.
 */
export function keepEnrolmentLinkOfAddress(): boolean {
  const prefix = `#${CONSOLE_ENROLMENT_FRAGMENT}`;
  const { hash, pathname, search } = window.location;
  if (hash.startsWith(prefix)) {
    const token = hash.slice(prefix.length);
    if (token !== '') storage()?.setItem(STORAGE_KEY, token);
    window.history.replaceState(window.history.state, '', `${pathname}${search}`);
  }
  return enrolmentToken() !== undefined;
}

/** The token of the link opened in this tab, sent with the registration of the first passkey. */
export function enrolmentToken(): string | undefined {
  return storage()?.getItem(STORAGE_KEY) ?? undefined;
}

/** Once the first passkey is registered the link is spent: nothing of it stays in the browser. */
export function forgetEnrolmentLink(): void {
  storage()?.removeItem(STORAGE_KEY);
}

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}
