import type { ConsoleRole } from '@dea/contract';
import { useSyncExternalStore } from 'react';

/** The console's screens, and which roles see each (the server refuses the others anyway). */
export const CONSOLE_SCREENS = ['helpdesk', 'audit', 'reports', 'administration', 'people'] as const;
export type ConsoleScreen = (typeof CONSOLE_SCREENS)[number];

const SCREENS_OF_ROLE: Readonly<Record<ConsoleRole, readonly ConsoleScreen[]>> = {
  admin: ['helpdesk', 'audit', 'reports', 'administration', 'people'],
  helpdesk: ['helpdesk'],
  auditor: ['audit', 'reports'],
};

export const screensOf = (role: ConsoleRole): readonly ConsoleScreen[] => SCREENS_OF_ROLE[role];

export interface ConsoleRoute {
  screen: ConsoleScreen;
  /** What follows the screen in the address: a user's id, an administration section. */
  rest: readonly string[];
}

/** '#/helpdesk/user/42' → helpdesk, ['user', '42']; a screen the role lacks → its first screen. */
export function parseConsoleHash(hash: string, role: ConsoleRole): ConsoleRoute {
  const [first = '', ...rest] = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
  const allowed = screensOf(role);
  const screen = allowed.find((name) => name === first);
  return screen === undefined ? { screen: allowed[0] ?? 'helpdesk', rest: [] } : { screen, rest };
}

export const hrefOf = (screen: ConsoleScreen, ...rest: string[]): string =>
  `#/${[screen, ...rest.map(encodeURIComponent)].join('/')}`;

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The route of the address bar, following hash changes (the browser's back button included). */
export function useConsoleRoute(role: ConsoleRole): ConsoleRoute {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseConsoleHash(hash, role);
}
