import { describe } from 'vitest';
import { appTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';
const PASSWORD = 'a console password';
const ORIGIN = 'http://localhost';
const NEEDED =
  "Registering this account's first passkey needs its enrolment link. Ask an administrator for one (dea admin reset-passkeys) and open it in this browser.";
const INVALID =
  'This enrolment link cannot be used: it was used already, it expired, a newer one replaced it, or it belongs to another account. Ask an administrator for a new one.';

/** The token at the end of the link a `dea admin` command printed. */
function tokenOf(out: string): string {
  const token = /https?:\/\/\S+\/admin\/#enrol=([A-Za-z0-9_-]+)/.exec(out)?.[1];
  if (token === undefined) throw new Error(`no enrolment link in: ${out}`);
  return token;
}

async function addAccount(t: TestApp, username: string): Promise<string> {
  const added = await t.dea(
    ['admin', 'add', '--username', username, '--role', 'helpdesk', '--password-stdin'],
    {},
    `${PASSWORD}\n`,
  );
  if (added.code !== 0) throw new Error(added.err);
  return tokenOf(added.out);
}

/** A console session past its password, and the passkey calls as the console's page makes them. */
async function signedIn(t: TestApp, username: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `${BASE}/session`,
    headers: { host: 'localhost' },
    payload: { username, password: PASSWORD },
  });
  const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
  const headers = {
    host: 'localhost',
    cookie: `dea_console=${cookies.dea_console ?? ''}; dea_console_token=${cookies.dea_console_token ?? ''}`,
    'x-console-token': cookies.dea_console_token ?? '',
  };
  const post = async (path: string, payload: Record<string, unknown>) =>
    (await t.app.inject({ method: 'POST', url: `${BASE}/${path}`, headers, payload })).json<{
      error: number;
      message: string;
      result: Record<string, unknown> & { challenge: string; rp: { id: string } };
    }>();
  return {
    post,
    options: (enrolment?: string) =>
      post('passkey/registration/options', enrolment === undefined ? {} : { enrolment }),
    /** Options, then the authenticator's answer to them, with the enrolment token at both steps. */
    async register(authenticator: SoftwareAuthenticator, enrolment?: string) {
      const options = await this.options(enrolment);
      if (options.error !== 0) return options;
      return post('passkey/registration', {
        ...authenticator.register(options.result, ORIGIN),
        ...(enrolment !== undefined && { enrolment }),
      });
    },
    me: async () =>
      (await t.app.inject({ method: 'GET', url: `${BASE}/me`, headers })).json<{
        result: { passkeyVerified: boolean; next: string | null };
      }>().result,
  };
}

describe.each(DOOR_STORE_KINDS)('console enrolment links on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "a first passkey's registration says what is wrong with its link, and registers with the one dea admin printed",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const token = await addAccount(t, 'ada');
      const authenticator = new SoftwareAuthenticator();
      const ada = await signedIn(t, 'ada');
      expect(await ada.options()).toMatchObject({ error: 3, message: NEEDED });
      expect(await ada.options('made-up-token')).toMatchObject({ error: 3, message: INVALID });
      const options = await ada.options(token);
      expect(options).toMatchObject({
        error: 0,
        result: {
          rp: { id: 'localhost', name: 'Emergency Access console' },
          user: { name: 'ada' },
          attestation: 'none',
        },
      });
      expect(await ada.register(authenticator, token)).toMatchObject({ error: 0 });
      expect(await ada.me()).toMatchObject({ passkeyVerified: true, next: null });
      // What /metrics serves on the management port.
      const metrics = await t.services.metrics.registry.metrics();
      expect(metrics).toContain('dea_console_enrolment_links_total{outcome="used",reason=""} 1');
      expect(metrics).toContain('dea_console_enrolment_links_total{outcome="refused",reason="missing"} 1');
      expect(metrics).toContain('dea_console_enrolment_links_total{outcome="refused",reason="unknown"} 1');
    },
  );
});
