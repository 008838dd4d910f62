import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { loadConfig } from '../../config.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import { appTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';
const PASSWORD = 'a console password';
const ORIGIN = 'http://localhost';
const NEEDED =
  "Registering this account's first passkey needs its enrolment link. Ask an administrator for one (dea admin reset-passkeys) and open it in this browser.";
const INVALID =
  'This enrolment link cannot be used: it was used already, it expired, a newer one replaced it, or it belongs to another account. Ask an administrator for a new one.';
const ALLOWED_MODEL = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';
const OTHER_MODEL = '01020304-0506-0708-0102-030405060708';

/** The token at the end of the link a `dea admin` command printed. */
function tokenOf(out: string): string {
  const token = /https?:\/\/\S+\/admin\/#enrol=([A-Za-z0-9_-]+)/.exec(out)?.[1];
  if (token === undefined) throw new Error(`no enrolment link in: ${out}`);
  return token;
}

async function addAccount(
  t: TestApp,
  username: string,
  settings: Record<string, string> = {},
): Promise<string> {
  const added = await t.dea(
    ['admin', 'add', '--username', username, '--role', 'helpdesk', '--password-stdin'],
    settings,
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

const reasonsOf = async (t: TestApp) =>
  (await t.services.store.audit.list({ event: 'console.enrolment_link_refused' })).map(
    (entry) => entry.details.reason,
  );

describe.each(STORE_KINDS)('console enrolment links on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "a first passkey is refused without the account's enrolment link and registered once with it",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const token = await addAccount(t, 'ada');
      await addAccount(t, 'bo');
      const authenticator = new SoftwareAuthenticator();
      const ada = await signedIn(t, 'ada');

      // The password alone no longer binds a passkey: no link, a made-up one, another account's.
      expect(await ada.options()).toMatchObject({ error: 3, message: NEEDED });
      expect(await ada.register(authenticator)).toMatchObject({ error: 3, message: NEEDED });
      expect(await ada.options('made-up-token')).toMatchObject({ error: 3, message: INVALID });
      const bo = await signedIn(t, 'bo');
      expect(await bo.register(authenticator, token)).toMatchObject({ error: 3, message: INVALID });
      // The registration itself needs the link too, not only its options.
      const options = await ada.options(token);
      expect(options).toMatchObject({ error: 0, result: { attestation: 'none' } });
      expect(
        await ada.post('passkey/registration', authenticator.register(options.result, ORIGIN)),
      ).toMatchObject({ error: 3, message: NEEDED });

      expect(await ada.register(authenticator, token)).toMatchObject({ error: 0 });
      expect(await ada.me()).toMatchObject({ passkeyVerified: true, next: null });
      const account = await t.services.store.console.findAccountByUsername(usernameOrThrow('ada'));
      expect(await t.services.store.console.listPasskeys(account?.id ?? '')).toHaveLength(1);
      expect((await reasonsOf(t)).reverse()).toEqual([
        'missing',
        'missing',
        'unknown',
        'other-account',
        'missing',
      ]);
      expect(await t.services.store.audit.list({ event: 'console.enrolment_link_used' })).toMatchObject([
        { actor: 'console:ada' },
      ]);
      expect(await t.services.store.audit.list({ event: 'console.enrolment_link_issued' })).toMatchObject([
        { actor: 'cli', details: { username: 'bo' } },
        { actor: 'cli', details: { username: 'ada' } },
      ]);

      // Used: after reset-passkeys the old link is no good, the new one is.
      const reset = await t.dea(['admin', 'reset-passkeys', 'ada']);
      expect(reset.out).toContain('Removed 1 passkeys of console account ada; 1 sessions ended.');
      const again = await signedIn(t, 'ada');
      expect(await again.register(authenticator, token)).toMatchObject({ error: 3, message: INVALID });
      expect(await again.register(authenticator, tokenOf(reset.out))).toMatchObject({ error: 0 });
      expect((await reasonsOf(t)).at(0)).toBe('used');
      // What /metrics serves on the management port.
      const metrics = await t.services.metrics.registry.metrics();
      expect(metrics).toContain('dea_console_enrolment_links_total{outcome="used",reason=""} 2');
      expect(metrics).toContain('dea_console_enrolment_links_total{outcome="refused",reason="missing"} 3');
    },
  );

  appTest(
    'of registrations at once with one link, in sessions of their own, one passkey is bound',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const token = await addAccount(t, 'cy');
      const sessions = await Promise.all(Array.from({ length: 6 }, () => signedIn(t, 'cy')));
      const answers = await Promise.all(
        sessions.map((session) => session.register(new SoftwareAuthenticator(), token)),
      );
      expect(answers.filter((answer) => answer.error === 0)).toHaveLength(1);
      const account = await t.services.store.console.findAccountByUsername(usernameOrThrow('cy'));
      expect(await t.services.store.console.listPasskeys(account?.id ?? '')).toHaveLength(1);
      expect(await t.services.store.audit.list({ event: 'console.enrolment_link_used' })).toHaveLength(1);
    },
  );

  appTest(
    'a link expires after DEA_CONSOLE_ENROLMENT_LINK_HOURS, and a newer one replaces it',
    async ({ startApp, expect }) => {
      // The CLI makes the link: the setting is the CLI's.
      const t = await startApp();
      const settings = { DEA_CONSOLE_ENROLMENT_LINK_HOURS: '2' };
      const first = await addAccount(t, 'dee', settings);
      const second = tokenOf((await t.dea(['admin', 'reset-passkeys', 'dee'], settings)).out);
      const dee = await signedIn(t, 'dee');
      expect(await dee.options(first)).toMatchObject({ error: 3, message: INVALID });
      expect(await dee.options(second)).toMatchObject({ error: 0 });

      const link = await t.services.store.console.findEnrolmentLink([
        keyedHash(t.services.keys.consoleEnrolment, 'console-enrolment', second),
      ]);
      expect(link).toBeDefined();
      expect((link?.expiresAt ?? 0) - (link?.createdAt ?? 0)).toBe(2 * 60 * 60_000);
      t.clock.advance((link?.expiresAt ?? 0) - t.clock.now());
      const late = await signedIn(t, 'dee');
      expect(await late.register(new SoftwareAuthenticator(), second)).toMatchObject({
        error: 3,
        message: INVALID,
      });
      expect(await reasonsOf(t)).toEqual(['expired', 'unknown']);
    },
  );

  appTest(
    'with DEA_CONSOLE_PASSKEY_AAGUIDS, only an attested, listed model is registered, and a refused one leaves the link',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_CONSOLE_PASSKEY_AAGUIDS: ` ${ALLOWED_MODEL.toUpperCase()} ` });
      const token = await addAccount(t, 'eve');
      const eve = await signedIn(t, 'eve');
      expect(await eve.options(token)).toMatchObject({ error: 0, result: { attestation: 'direct' } });
      const refusedModels = [
        new SoftwareAuthenticator(OTHER_MODEL, 'certificate'),
        new SoftwareAuthenticator(ALLOWED_MODEL, 'none'),
        new SoftwareAuthenticator(ALLOWED_MODEL, 'self'),
      ];
      for (const authenticator of refusedModels) {
        expect(await eve.register(authenticator, token)).toMatchObject({
          error: 3,
          message:
            'This authenticator is not one of the models allowed for the console. Register a security key your organisation issued.',
        });
      }
      const refused = await t.services.store.audit.list({ event: 'console.passkey_refused' });
      expect(refused.map((entry) => [entry.details.aaguid, entry.details.fmt]).reverse()).toEqual([
        [OTHER_MODEL, 'packed'],
        [ALLOWED_MODEL, 'none'],
        [ALLOWED_MODEL, 'packed'],
      ]);
      expect(
        await eve.register(new SoftwareAuthenticator(ALLOWED_MODEL, 'certificate'), token),
      ).toMatchObject({
        error: 0,
      });
      expect(await t.services.store.audit.list({ event: 'console.passkey_registered' })).toMatchObject([
        { details: { aaguid: ALLOWED_MODEL } },
      ]);
    },
  );
});

appTest('a setting of enrolment that is not right names itself and what it should be', ({ expect }) => {
  expect(() => loadConfig({ DEA_CONSOLE_PASSKEY_AAGUIDS: `${ALLOWED_MODEL},yubikey` })).toThrow(
    /DEA_CONSOLE_PASSKEY_AAGUIDS: "yubikey" is not an AAGUID/,
  );
  expect(() => loadConfig({ DEA_CONSOLE_URL: 'dea.example.com/admin' })).toThrow(
    /DEA_CONSOLE_URL="dea.example.com\/admin": must be the console's address/,
  );
  expect(loadConfig({ DEA_CONSOLE_URL: 'https://dea.example.com/admin' }).console.consoleUrl).toBe(
    'https://dea.example.com/admin/',
  );
  expect(loadConfig({ PORT: '9000' }).console).toMatchObject({
    consoleUrl: 'http://localhost:9000/admin/',
    enrolmentLinkMs: 24 * 60 * 60_000,
    allowedAaguids: [],
  });
});
