import { sha256 } from '../crypto/keyed-hash.js';
import type { TestApp } from './test-app.js';

const PASSWORD = 'a console password';

/**
 * A console session of a new account with that role. The passkey step itself runs in Chromium
 * (e2e/specs/console-passkey.spec.ts); here the session is marked as past it in the store.
 */
export async function consoleAgent(
  t: TestApp,
  base: string,
  role: string,
  passkey = true,
  /** `dea admin add`'s further options, such as `['--scope', 'Staff EU']`. */
  options: readonly string[] = [],
) {
  const username = `${role}-${Math.random().toString(36).slice(2, 8)}`;
  const added = await t.dea(
    ['admin', 'add', '--username', username, '--role', role, ...options, '--password-stdin'],
    {},
    `${PASSWORD}\n`,
  );
  if (added.code !== 0) throw new Error(added.err);
  const response = await t.app.inject({
    method: 'POST',
    url: '/dea/admin-api/session',
    payload: { username, password: PASSWORD },
  });
  const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
  const sessionId = cookies.dea_console ?? '';
  const markPasskey = () => t.services.store.console.markPasskey(sha256(sessionId), t.clock.now());
  if (passkey) await markPasskey();
  const headers = {
    cookie: `dea_console=${sessionId}; dea_console_token=${cookies.dea_console_token ?? ''}`,
    'x-console-token': cookies.dea_console_token ?? '',
  };
  return {
    username,
    markPasskey,
    get: (url: string) => t.app.inject({ method: 'GET', url: `${base}${url}`, headers }),
    post: (url: string, payload: unknown = {}) =>
      t.app.inject({
        method: 'POST',
        url: `${base}${url}`,
        headers,
        payload: payload as Record<string, unknown>,
      }),
  };
}
