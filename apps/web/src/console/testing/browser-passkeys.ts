import { vi } from 'vitest';

/**
 * The browser's WebAuthn dialog, as the console's unit tests see it: it answers at once with an
 * assertion (Chromium's real dialog is driven in e2e/specs/console-roles.spec.ts). The fake of
 * every file that replaces `@simplewebauthn/browser` in its own module graph (vitest.config.ts):
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
