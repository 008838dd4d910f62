import type { ConsoleRole } from '../../store/store.js';

/**
 * Who may act in the console, by what they do: the roles allowed, each past the passkey of their
 * session. A console route declares one of these (`config: { console: ... }`) and the console
 * guard (http/console-guard.ts) checks it before the route runs; the use cases take the caller as
 * allowed. What depends on the person acted for (a scoped role's groups, the "Help Desk" policy)
 * stays in the use case.
 */
export const CONSOLE_ACCESS = {
  /** Groups, policies, branding, texts, service keys, console accounts and people. */
  administer: ['admin'],
  /** The help desk, and a person's channels in the People screens. */
  workHelpDesk: ['admin', 'helpdesk'],
  readAudit: ['admin', 'auditor'],
  readReports: ['admin', 'auditor'],
} as const satisfies Record<string, readonly ConsoleRole[]>;

/**
 * What a console route declares: the roles of `CONSOLE_ACCESS`, or `session` for the steps of
 * signing in (and out), which take any open session and check its steps themselves.
 */
export type ConsoleAccess = (typeof CONSOLE_ACCESS)[keyof typeof CONSOLE_ACCESS] | 'session';
