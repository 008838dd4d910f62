import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DirectoryUnavailableError } from '../domain/identity/user-directory.js';
import { openCliFixture, type CliFixture } from '../testing/cli.js';
import { startLdapServer, type LdapServer, type LdapServerAddress } from '../testing/ldap-server.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../testing/ldap-tree.js';
import { portThatNeverConnects, tcpFront, type FrontState } from '../testing/tcp-fronts.js';
import { testConfig } from '../testing/test-app.js';
import type { DirectoryConfig } from './directory-settings.js';
import { LdapDirectory, type DirectoryLog } from './ldap-directory.js';

/**
 * A directory URL first in the list that fails in each of the ways servers fail in the field:
 * refused, hung at connect (the handshake never completes), hung after connect (takes the
 * connection and never answers), and hung in the middle of a kept connection (a real slapd
 * stopped with SIGSTOP). In every form the work goes on at the next URL within one timeout, later
 * work does not go near the failed URL, and only a probe that got an answer brings it back.
 */

const TIMEOUT_SECONDS = 2;

function recordingLog(): DirectoryLog & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    warn: (_details, message) => lines.push({ level: 'warn', message }),
    info: (_details, message) => lines.push({ level: 'info', message }),
  };
}

function directoryOf(settings: Record<string, string>, now: () => number = Date.now, log?: DirectoryLog) {
  return new LdapDirectory(testConfig(settings).directory as DirectoryConfig, now, log);
}

/** What a sign-in asks of the directory: the person by name, then a bind as them. */
async function signInThrough(directory: LdapDirectory): Promise<number> {
  const started = performance.now();
  const found = await directory.findUser('alice', { groups: false });
  expect(found).toMatchObject({ username: 'alice' });
  expect(await directory.checkPassword(found?.ref ?? '', DIRECTORY_PEOPLE.alice.password)).toBe(true);
  return performance.now() - started;
}

/** How the product reaches the directory: the URL's scheme, StartTLS, a service account or none. */
const WAYS: Record<string, (tree: LdapTree, server: LdapServerAddress) => Record<string, string>> = {
  'StartTLS, service account': (tree: LdapTree) => ({ ...tree.settings }),
  'no StartTLS, anonymous': (tree: LdapTree) => ({
    ...tree.settings,
    DEA_LDAP_STARTTLS: 'false',
    DEA_LDAP_BIND_DN: '',
    DEA_LDAP_BIND_PASSWORD_FILE: '',
  }),
  'ldaps://, service account': (tree: LdapTree, server: LdapServerAddress) => ({
    ...tree.settings,
    DEA_LDAP_URL: server.ldapsUrl,
  }),
};

describe('a first directory URL that fails', () => {
  let tree: LdapTree;
  const server = inject('ldap');
  beforeAll(async () => {
    tree = await createLdapTree(server);
  });
  afterAll(() => tree.dispose());

  describe.each(Object.entries(WAYS))('reached by %s', (_way, settingsOf) => {
    it.each([
      ['refused', 'refusing'],
      ['hung after connect', 'silent'],
    ] as [string, FrontState][])(
      '%s: four sign-ins in a row succeed through the next URL, and only the first goes near it',
      async (_form, state) => {
        const settings = settingsOf(tree, server);
        const good = settings.DEA_LDAP_URL ?? '';
        // The failing URL has the good one's scheme: for ldaps:// the front takes the handshake.
        const failing = await tcpFront(good, state);
        const log = recordingLog();
        try {
          const directory = directoryOf(
            {
              ...settings,
              DEA_LDAP_URL: `${failing.url},${good}`,
              DEA_LDAP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
            },
            Date.now,
            log,
          );
          for (let signIn = 0; signIn < 4; signIn += 1) await signInThrough(directory);
          expect(failing.connections()).toBe(1);
          expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
          expect(log.lines[0]?.message).toContain(failing.url);
          if (state === 'silent') expect(log.lines[0]?.message).toMatch(/DEA_LDAP_TIMEOUT_SECONDS/);
          await directory.close();
        } finally {
          await failing.close();
        }
      },
    );

    it('hung at connect: four sign-ins in a row succeed, and the second to fourth do not wait for it', async () => {
      const settings = settingsOf(tree, server);
      const good = settings.DEA_LDAP_URL ?? '';
      const failing = await portThatNeverConnects(new URL(good).protocol.replace(':', ''));
      const log = recordingLog();
      try {
        const directory = directoryOf(
          {
            ...settings,
            DEA_LDAP_URL: `${failing.url},${good}`,
            DEA_LDAP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
          },
          Date.now,
          log,
        );
        const times: number[] = [];
        for (let signIn = 0; signIn < 4; signIn += 1) times.push(await signInThrough(directory));
        // The first waited out the connect's timeout; the others never waited for that URL (a
        // wait would take the whole timeout, far above a sign-in's own time on a loaded machine).
        expect(times[0]).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 50);
        for (const time of times.slice(1)) expect(time).toBeLessThan(TIMEOUT_SECONDS * 1000);
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
        await directory.close();
      } finally {
        await failing.close();
      }
    });

    it('is probed over the network once its time is up, kept passed over while it does not answer, and used again once it does', async () => {
      const settings = settingsOf(tree, server);
      const good = settings.DEA_LDAP_URL ?? '';
      const failing = await tcpFront(good, 'silent');
      const log = recordingLog();
      let now = Date.UTC(2026, 11, 6, 12);
      try {
        const directory = directoryOf(
          {
            ...settings,
            DEA_LDAP_URL: `${failing.url},${good}`,
            DEA_LDAP_TIMEOUT_SECONDS: '1',
            DEA_LDAP_DEAD_SERVER_SECONDS: '60',
          },
          () => now,
          log,
        );
        await signInThrough(directory);
        expect(failing.connections()).toBe(1);

        // Its time is up: the sign-in does not wait; a probe connects in the background.
        now += 60_000;
        await signInThrough(directory);
        await expect.poll(() => failing.connections()).toBe(2);
        // The probe got no answer (its connection was given up): still passed over, nothing logged.
        await expect.poll(() => failing.open()).toBe(0);
        await signInThrough(directory);
        expect(failing.connections()).toBe(2);
        expect(log.lines.map((line) => line.level)).toEqual(['warn']);

        // A minute later it answers: the probe's answer brings it back, and work goes to it first.
        failing.become('forwarding');
        now += 61_000;
        await signInThrough(directory);
        await expect.poll(() => log.lines.map((line) => line.level)).toEqual(['warn', 'info']);
        const before = failing.connections();
        await signInThrough(directory);
        expect(failing.connections()).toBeGreaterThan(before);
        await directory.close();
      } finally {
        await failing.close();
      }
    });
  });

  it('a refused URL is not brought back by a probe that cannot connect: the log says it once', async () => {
    const failing = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'refusing');
    const log = recordingLog();
    let now = Date.UTC(2026, 11, 6, 12);
    try {
      const directory = directoryOf(
        { ...tree.settings, DEA_LDAP_URL: `${failing.url},${tree.settings.DEA_LDAP_URL}` },
        () => now,
        log,
      );
      for (let minute = 0; minute < 4; minute += 1) {
        await signInThrough(directory);
        const probes = failing.connections();
        now += 61_000;
        await signInThrough(directory);
        await expect.poll(() => failing.connections()).toBe(probes + 1);
      }
      expect(log.lines.map((line) => line.level)).toEqual(['warn']);
      await directory.close();
    } finally {
      await failing.close();
    }
  });
});

describe('a directory server that stops answering in the middle of kept connections (SIGSTOP)', () => {
  // Two slapds of their own holding the same entries (a domain and its second controller).
  let first: LdapServer;
  let second: LdapServer;
  let tree: LdapTree;
  beforeAll(async () => {
    first = await startLdapServer();
    tree = await createLdapTree(first);
    second = await first.replica();
  });
  afterAll(async () => {
    first.resume();
    await tree.dispose();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('goes on at the next URL within one timeout, does not go back until a probe got an answer, then does', async () => {
    // The first server is reached through a front that counts the connections to it.
    const front = await tcpFront(first.url);
    const log = recordingLog();
    let now = Date.UTC(2026, 11, 6, 12);
    const directory = directoryOf(
      {
        ...tree.settings,
        DEA_LDAP_URL: `${front.url},${second.url}`,
        DEA_LDAP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        DEA_LDAP_POOL_SIZE: '2',
      },
      () => now,
      log,
    );
    try {
      // Connections kept to the first server, which answers.
      await Promise.all([signInThrough(directory), signInThrough(directory)]);
      const kept = front.connections();
      expect(kept).toBeGreaterThanOrEqual(2);

      await first.pause();
      // Searches on the kept connections get no answer: passed over, the work goes on at the second.
      await Promise.all([signInThrough(directory), signInThrough(directory)]);
      expect(await directory.groupDnsOf(tree.dnOf('alice'))).toContain(tree.groupDn('vpn').toLowerCase());
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      const afterFailover = front.connections();
      for (let signIn = 0; signIn < 4; signIn += 1) await signInThrough(directory);
      expect(front.connections()).toBe(afterFailover);

      // Its time is up while it is still stopped: the probe gets no answer, work stays on the second.
      now += 61_000;
      await signInThrough(directory);
      await expect.poll(() => front.connections()).toBe(afterFailover + 1);
      await expect.poll(() => front.open()).toBe(0);
      await signInThrough(directory);
      expect(front.connections()).toBe(afterFailover + 1);

      // Going on again, it answers the next probe and is used first again.
      first.resume();
      now += 61_000;
      await signInThrough(directory);
      await expect.poll(() => log.lines.at(-1)?.level).toBe('info');
      const probed = front.connections();
      await signInThrough(directory);
      expect(front.connections()).toBeGreaterThan(probed);
    } finally {
      first.resume();
      await directory.close();
      await front.close();
    }
  });

  it('with one URL, a stopped server answers "unavailable" after the timeout, not never, and works at once when it goes on', async () => {
    const directory = directoryOf({
      ...tree.settings,
      DEA_LDAP_URL: first.url,
      DEA_LDAP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    });
    try {
      await signInThrough(directory);
      await first.pause();
      await expect(directory.findUser('alice')).rejects.toBeInstanceOf(DirectoryUnavailableError);
      first.resume();
      await signInThrough(directory);
    } finally {
      first.resume();
      await directory.close();
    }
  });
});

describe('dea directory test and sync with a first URL that hangs', () => {
  let tree: LdapTree;
  let cli: CliFixture;
  beforeAll(async () => {
    [tree, cli] = await Promise.all([createLdapTree(inject('ldap')), openCliFixture('sqlite')]);
  });
  afterAll(async () => {
    await tree.dispose();
    await cli.dispose();
  });

  it('test names it as not answering in time, checks the others beside it, and finds the user at the next URL without going back to it', async () => {
    const hung = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
    try {
      const env = {
        ...tree.settings,
        DEA_LDAP_URL: `${hung.url},${tree.settings.DEA_LDAP_URL}`,
        DEA_LDAP_TIMEOUT_SECONDS: '1',
      };
      const { code, out } = await cli.run(['directory', 'test', 'alice'], { env });
      expect(out).toMatch(
        new RegExp(
          `^failed {2}${hung.url}: .*timed out.*check DEA_LDAP_URL and DEA_LDAP_TIMEOUT_SECONDS`,
          'm',
        ),
      );
      expect(out).toContain(
        `ok      ${tree.settings.DEA_LDAP_URL}: connected, bound as ${tree.settings.DEA_LDAP_BIND_DN}`,
      );
      expect(out).toContain(`dn        ${tree.dnOf('alice')}`);
      expect(code).toBe(1);
      expect(hung.connections()).toBe(1);
    } finally {
      await hung.close();
    }
  });

  it('sync reads everyone through the next URL, meeting the hung one once', async () => {
    const hung = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
    try {
      const env = {
        ...tree.settings,
        DEA_LDAP_URL: `${hung.url},${tree.settings.DEA_LDAP_URL}`,
        DEA_LDAP_TIMEOUT_SECONDS: '1',
      };
      const { code, out } = await cli.run(['directory', 'sync'], { env });
      expect(out).toMatch(/4 created, 0 updated, 0 disabled.* 0 failed/);
      expect(code).toBe(0);
      expect(hung.connections()).toBe(1);
    } finally {
      await hung.close();
    }
  });
});
