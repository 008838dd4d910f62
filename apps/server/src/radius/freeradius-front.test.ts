import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { startFreeradius } from '../testing/freeradius.js';
import { appTest } from '../testing/fixtures.js';
import { freeUdpPort } from '../testing/free-port.js';
import { radclientReply } from '../testing/radclient.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';
import { docsPage } from '../testing/guide-pages.js';
import { startRadiusServer } from './radius-server.js';
import { radiusAuthenticator } from './start-radius.js';

/** The RADIUS guide, whose FreeRADIUS snippets are tested here. */
const GUIDE = docsPage('integrator/radius.md');
const FRONT_SECRET = 'vpn-to-freeradius-secret-01';
const PROXY_SECRET = 'a-long-random-secret-for-freeradius';

/** The RADIUS guide's FreeRADIUS snippets, as an operator copies them. */
function readmeSnippet(containing: string): string {
  const block = [...GUIDE.matchAll(/```conf\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((text) => text.includes(containing));
  if (block === undefined) throw new Error(`the RADIUS guide shows no conf block with ${containing}`);
  return block;
}

interface FreeRadius {
  /** Where the VPN (radclient) asks. */
  port: number;
  stop(): void;
}

/**
 * Debian's freeradius with a configuration of its own around the guide's snippets: it listens
 * for the VPN (radclient) and proxies to this product's two instances (dea1, dea2) on these ports.
 */
async function startFreeRadius(productPorts: [number, number]): Promise<FreeRadius> {
  const dir = mkdtempSync(join(tmpdir(), 'dea-freeradius-'));
  for (const sub of ['log', 'run']) mkdirSync(join(dir, sub));
  const port = await freeUdpPort();
  const proxy = readmeSnippet('home_server dea1')
    .replaceAll(/ipaddr = dea\d\.example\.com/g, 'ipaddr = 127.0.0.1')
    .replace('port = 1812', `port = ${productPorts[0]}`)
    .replace('port = 1812', `port = ${productPorts[1]}`);
  const authorize = readmeSnippet('Proxy-To-Realm');
  writeFileSync(join(dir, 'dictionary'), '$INCLUDE /usr/share/freeradius/dictionary\n');
  writeFileSync(join(dir, 'proxy.conf'), `proxy server {\n\tdefault_fallback = no\n}\n${proxy}`);
  writeFileSync(
    join(dir, 'clients.conf'),
    `client vpn {\n\tipaddr = 127.0.0.1\n\tsecret = ${FRONT_SECRET}\n\trequire_message_authenticator = yes\n}\n`,
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
      'max_request_time = 10',
      'cleanup_delay = 1',
      'max_requests = 1024',
      'hostname_lookups = no',
      'log {\n\tdestination = stdout\n}',
      'security {\n\tallow_core_dumps = no\n\tmax_attributes = 200\n\treject_delay = 0\n\tstatus_server = no\n}',
      'proxy_requests = yes',
      '$INCLUDE proxy.conf',
      '$INCLUDE clients.conf',
      'thread pool {\n\tstart_servers = 1\n\tmax_servers = 4\n\tmin_spare_servers = 1\n\tmax_spare_servers = 2\n}',
      'modules {\n}',
      `server default {\n\tlisten {\n\t\ttype = auth\n\t\tipaddr = 127.0.0.1\n\t\tport = ${port}\n\t}\n\tauthorize {\n${authorize}\t}\n\tauthenticate {\n\t}\n\tpost-proxy {\n\t}\n}`,
      '',
    ].join('\n'),
  );
  const stop = await startFreeradius(dir);
  return { port, stop };
}

// One FreeRADIUS for the file, started once: its home servers dea1 and dea2 are the ports each
// test's two instances of the product listen on.
let front: FreeRadius;
let homePorts: [number, number];
beforeAll(async () => {
  homePorts = [await freeUdpPort(), await freeUdpPort()];
  front = await startFreeRadius(homePorts);
});
afterAll(() => front.stop());

/** The product's two instances, as FreeRADIUS's home servers dea1 and dea2, on the app's store. */
async function homeServers(t: TestApp, onTestFinished: (fn: () => Promise<void>) => void) {
  const instance = (port: number) =>
    startRadiusServer({
      host: '127.0.0.1',
      port,
      clients: new Map([['127.0.0.1', PROXY_SECRET]]),
      authenticate: radiusAuthenticator(t.services),
    });
  const dea1 = await instance(homePorts[0]);
  const dea2 = await instance(homePorts[1]);
  let dea1Open = true;
  onTestFinished(async () => {
    if (dea1Open) await dea1.close();
    await dea2.close();
  });
  return {
    stopDea1: async () => {
      dea1Open = false;
      await dea1.close();
    },
  };
}

describe.each(STORE_KINDS)('behind a real FreeRADIUS on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'the VPN asks FreeRADIUS, FreeRADIUS asks the product, and the answer comes back with its attributes',
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp();
      await homeServers(t, onTestFinished);

      const user = await t.createUser();
      await t.services.store.groups.setPolicy(
        (await t.services.store.groups.findByName(`group-${user.username}`))?.id ?? '',
        'RADIUS',
        {
          replyAttributes: [
            ['Filter-Id', 'vpn-staff'],
            ['Session-Timeout', '3600'],
          ],
        },
      );
      const code = await t.codeOnScreen(user);

      const wrong = await radclientReply(front.port, FRONT_SECRET, {
        userName: user.username,
        password: 'WRONG23456',
      });
      expect(wrong.answer).toBe('Access-Reject');
      const accepted = await radclientReply(front.port, FRONT_SECRET, {
        userName: user.username,
        password: code ?? '',
      });
      expect(accepted.answer).toBe('Access-Accept');
      expect(accepted.attributes).toEqual(
        expect.arrayContaining(['Filter-Id = "vpn-staff"', 'Session-Timeout = 3600']),
      );
      expect(
        (await radclientReply(front.port, FRONT_SECRET, { userName: user.username, password: code ?? '' }))
          .answer,
      ).toBe('Access-Reject');
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.used' })).toMatchObject([
        { actor: 'radius:127.0.0.1' },
      ]);
    },
  );
});

// Last: once dea1 is gone FreeRADIUS holds it for dead (status_check = none), which the tests above
// need not meet. Which store the instances share does not matter to FreeRADIUS.
appTest(
  'when dea1 goes away, FreeRADIUS fails over to dea2 after its response window',
  async ({ startApp, expect, onTestFinished }) => {
    const t = await startApp();
    const { stopDea1 } = await homeServers(t, onTestFinished);
    const user = await t.createUser();
    await stopDea1();
    const code = await t.codeOnScreen(user);
    const answers: string[] = [];
    for (let attempt = 0; attempt < 4 && answers.at(-1) !== 'Access-Accept'; attempt += 1) {
      const reply = await radclientReply(
        front.port,
        FRONT_SECRET,
        { userName: user.username, password: code ?? '' },
        7,
      );
      answers.push(reply.answer);
    }
    expect(answers.at(-1)).toBe('Access-Accept');
  },
);
