import { vi } from 'vitest';

/**
 * The browser's WebAuthn dialog, as the console's unit tests see it: it answers at once with an
 * assertion (Chromium's real dialog is driven in e2e/specs/console-roles.spec.ts). Every file that
 * replaces `@simplewebauthn/browser` replaces it with this one module: the files of the web project
 * share their modules (vitest.config.ts, isolate: false), so one console module imported by two
 * files sees the same fake whichever file loaded it first.
 *
 *   vi.mock('@simplewebauthn/browser', () => import('../testing/browser-passkeys'));
 *   beforeEach(resetBrowserPasskeys);
 */
const answerAtOnce = async () => ({ id: 'cred', rawId: 'cred', type: 'public-key', response: {} });

export const startAuthentication = vi.fn(answerAtOnce);
export const startRegistration = vi.fn();

/** Back to answering at once, and no calls recorded. */
export function resetBrowserPasskeys(): void {
  startAuthentication.mockReset();
  startAuthentication.mockImplementation(answerAtOnce);
  startRegistration.mockReset();
}
