import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { startFreeradius } from '../testing/freeradius.js';
import { appTest } from '../testing/fixtures.js';
import { freeUdpPort } from '../testing/free-port.js';
import { docsPage } from '../testing/guide-pages.js';
import { radclientReply } from '../testing/radclient.js';
import { fullwidth } from '../testing/spellings.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/** The guide whose configuration of privacyIDEA's FreeRADIUS plugin is tested here. */
const GUIDE = docsPage('integrator/verification.md');
const SECRET = 'vpn-to-freeradius-secret-02';

/**
 * privacyIDEA's FreeRADIUS plugin as its project publishes it, kept beside the tests
 * (testing/privacyidea-freeradius/README.md: in no Debian or npm package); DEA_TEST_PRIVACYIDEA_RADIUS_PM
 * names another copy to test instead (a newer release).
 */
const PLUGIN =
  process.env.DEA_TEST_PRIVACYIDEA_RADIUS_PM ||
  fileURLToPath(new URL('../testing/privacyidea-freeradius/privacyidea_radius.pm', import.meta.url));

/** The guide's block of that language holding `containing`. */
function guideBlock(language: 'conf' | 'ini', containing: string): string {
  const block = [...GUIDE.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))]
    .map((match) => match[1] ?? '')
    .find((text) => text.includes(containing));
  if (block === undefined) throw new Error(`the guide shows no ${language} block with ${containing}`);
  return block;
}

/**
 * Debian's freeradius with `rlm_perl` running `module` as the guide configures the plugin, its
 * ini's URL this app's /validate/check; answers the port the VPN (radclient) asks on.
 */
async function freeRadiusWithPlugin(
  module: string,
  validateCheckUrl: string,
  onTestFinished: (fn: () => void) => void,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'dea-freeradius-perl-'));
  for (const sub of ['log', 'run']) mkdirSync(join(dir, sub));
  const port = await freeUdpPort();
  writeFileSync(
    join(dir, 'rlm_perl.ini'),
    guideBlock('ini', 'URL = ').replace(/^URL = .*$/m, `URL = ${validateCheckUrl}`),
  );
  const perlModule = guideBlock('conf', 'perl perl-privacyidea')
    .replace(/filename = .*/, `filename = ${module}`)
    .replace(/configfile = .*/, `configfile = ${join(dir, 'rlm_perl.ini')}`);
  writeFileSync(join(dir, 'dictionary'), '$INCLUDE /usr/share/freeradius/dictionary\n');
  writeFileSync(
    join(dir, 'clients.conf'),
    `client vpn {\n\tipaddr = 127.0.0.1\n\tsecret = ${SECRET}\n\trequire_message_authenticator = yes\n}\n`,
  );
  writeFileSync(
    join(dir, 'radiusd.conf'),
    [
      'prefix = /usr',
      'exec_prefix = /usr',
      'sysconfdir = /etc',
      `localstatedir = ${dir}`,
      'sbindir = /usr/sbin',
      `logdir = ${dir}/log`,
      `raddbdir = ${dir}`,
      `radacctdir = ${dir}/log`,
      'name = freeradius',
      `confdir = ${dir}`,
      `run_dir = ${dir}/run`,
      `db_dir = ${dir}`,
      'libdir = /usr/lib/freeradius',
      `pidfile = ${dir}/run/freeradius.pid`,
      'max_request_time = 20',
      'cleanup_delay = 1',
      'max_requests = 1024',
      'hostname_lookups = no',
      'log {\n\tdestination = stdout\n}',
      'security {\n\tallow_core_dumps = no\n\tmax_attributes = 200\n\treject_delay = 0\n\tstatus_server = no\n}',
      '$INCLUDE clients.conf',
      `modules {\n${perlModule}}`,
      `server default {\n\tlisten {\n\t\ttype = auth\n\t\tipaddr = 127.0.0.1\n\t\tport = ${port}\n\t}`,
      `\tauthorize {\n${guideBlock('conf', 'Auth-Type := Perl')}\t}`,
      `\tauthenticate {\n${guideBlock('conf', 'Auth-Type Perl {')}\t}\n}`,
      '',
    ].join('\n'),
  );
  const stop = await startFreeradius(dir);
  onTestFinished(stop);
  return port;
}

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** A code as a person types it from the screen: in groups of three with spaces (`UF2 AJF MFWQ`). */
const spaced = (code: string): string => (code.match(/.{1,3}/g) ?? []).join(' ');

describe.each(DOOR_STORE_KINDS)('VPN, FreeRADIUS with rlm_perl, /validate/check on %s', (kind) => {
  appTest.override('storeKind', kind);

  describe("through privacyIDEA's FreeRADIUS plugin", () => {
    appTest(
      'names beyond ASCII, fullwidth spellings, codes typed with spaces and a % in a name are taken; wrong and used codes rejected',
      async ({ startApp, expect, onTestFinished }) => {
        const t = await startApp({ DEA_VALIDATE_CHECK_CLIENTS: '127.0.0.1' });
        const port = await freeRadiusWithPlugin(
          PLUGIN,
          `${await listening(t)}/validate/check`,
          onTestFinished,
        );
        const ask = async (userName: string, password: string) =>
          (await radclientReply(port, SECRET, { userName, password })).answer;
        const juergen = await t.createUser({ username: `jürgen-${kind}` });

        let code = await t.codeOnScreen(juergen);
        const wrong = await radclientReply(port, SECRET, {
          userName: juergen.username,
          password: 'WRONG23456',
        });
        expect(wrong.answer).toBe('Access-Reject');
        // The plugin passes the answer's message on (the guide says so).
        expect(wrong.attributes).toContain('Reply-Message = "wrong otp value"');
        expect(await ask(juergen.username, spaced(code))).toBe('Access-Accept');
        expect(await ask(juergen.username, code)).toBe('Access-Reject');
        code = await t.codeOnScreen(juergen);
        expect(await ask(fullwidth(juergen.username.toUpperCase()), code.toLowerCase())).toBe(
          'Access-Accept',
        );
        code = await t.codeOnScreen(juergen);
        expect(await ask(`  ${fullwidth(juergen.username)}\u3000`, ` ${spaced(code)} `)).toBe(
          'Access-Accept',
        );

        const percent = await t.createUser({ username: `50%25-off-${kind}` });
        code = await t.codeOnScreen(percent);
        expect(await ask(percent.username, `${spaced(code)}`)).toBe('Access-Accept');

        expect(
          (await t.services.store.audit.list({ userId: juergen.id, event: 'code.used' })).map(
            (entry) => entry.actor,
          ),
        ).toEqual(Array.from({ length: 3 }, () => 'validate-check:127.0.0.1'));
        expect(
          await t.services.store.audit.list({ userId: juergen.id, event: 'code.verify_failed' }),
        ).toHaveLength(2);
      },
    );
  });

  describe("through privacyIDEA's FreeRADIUS plugin", () => {
    appTest(
      'an address not listed in DEA_VALIDATE_CHECK_CLIENTS gets Access-Reject, the code unspent',
      async ({ startApp, expect, onTestFinished }) => {
        const t = await startApp({ DEA_VALIDATE_CHECK_CLIENTS: '10.9.9.9' });
        const port = await freeRadiusWithPlugin(
          PLUGIN,
          `${await listening(t)}/validate/check`,
          onTestFinished,
        );
        const user = await t.createUser();
        const code = await t.codeOnScreen(user);
        expect((await radclientReply(port, SECRET, { userName: user.username, password: code })).answer).toBe(
          'Access-Reject',
        );
        expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
      },
    );
  });
});
