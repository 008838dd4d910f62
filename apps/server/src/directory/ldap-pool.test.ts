import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tcpFront } from '../testing/tcp-fronts.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../testing/ldap-tree.js';
import { testConfig } from '../testing/test-app.js';
import type { DirectoryConfig } from './directory-settings.js';
import { LdapDirectory, type DirectoryLog } from './ldap-directory.js';

function recordingLog(): DirectoryLog & { lines: { level: string; details: object; message: string }[] } {
  const lines: { level: string; details: object; message: string }[] = [];
  return {
    lines,
    warn: (details, message) => lines.push({ level: 'warn', details, message }),
    info: (details, message) => lines.push({ level: 'info', details, message }),
  };
}

describe('the kept connections of the service account', () => {
  let tree: LdapTree;
  beforeAll(async () => {
    tree = await createLdapTree(inject('ldap'));
  });
  afterAll(() => tree.dispose());

  const directoryOf = (settings: Record<string, string>, now: () => number = Date.now, log?: DirectoryLog) =>
    new LdapDirectory(testConfig({ ...tree.settings, ...settings }).directory as DirectoryConfig, now, log);

  it('reuses one connection for search after search; a user password check has its own', async () => {
    const front = await tcpFront(tree.settings.DEA_LDAP_URL ?? '');
    const directory = directoryOf({ DEA_LDAP_URL: front.url });
    try {
      for (let round = 0; round < 20; round += 1)
        expect(await directory.findUser(round % 2 === 0 ? 'alice' : 'bob')).toBeDefined();
      expect(front.connections()).toBe(1);
      expect(await directory.checkPassword(tree.dnOf('alice'), DIRECTORY_PEOPLE.alice.password)).toBe(true);
      expect(front.connections()).toBe(2);
      // The user's connection is closed; the kept one stays for the next search.
      await expect.poll(() => front.open()).toBe(1);
      expect(await directory.groupsOf(tree.dnOf('alice'))).toEqual(['VPN']);
      expect(front.connections()).toBe(2);
    } finally {
      await directory.close();
      await front.close();
    }
  });

  it('opens at most DEA_LDAP_POOL_SIZE for 40 parallel searches, and every one is answered', async () => {
    const front = await tcpFront(tree.settings.DEA_LDAP_URL ?? '');
    const directory = directoryOf({ DEA_LDAP_URL: front.url, DEA_LDAP_POOL_SIZE: '3' });
    try {
      const names = ['alice', 'bob', 'carol', 'nobody'];
      const found = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          directory.findUser(names[index % 4] ?? 'alice', { groups: false }),
        ),
      );
      expect(found.filter((user) => user !== undefined)).toHaveLength(30);
      expect(front.connections()).toBeLessThanOrEqual(3);
      expect(front.mostOpen()).toBeLessThanOrEqual(3);
    } finally {
      await directory.close();
      await front.close();
    }
  });

  it('drops connections that broke and answers on new ones, without failing the caller', async () => {
    const front = await tcpFront(tree.settings.DEA_LDAP_URL ?? '');
    // A cut connection taken for a search would wait out the timeout, longer than the test may run.
    const directory = directoryOf({
      DEA_LDAP_URL: front.url,
      DEA_LDAP_POOL_SIZE: '2',
      DEA_LDAP_TIMEOUT_SECONDS: '120',
    });
    try {
      await Promise.all([directory.findUser('alice'), directory.findUser('bob')]);
      const before = front.connections();
      // Both kept connections are cut while idle (a restarted server, a firewall's timeout).
      front.cutAll();
      await expect.poll(() => front.open()).toBe(0);
      expect(await directory.findUser('alice')).toMatchObject({ username: 'alice' });
      expect(await directory.findUser('bob')).toMatchObject({ username: 'bob' });
      expect(front.connections()).toBe(before + 1);
    } finally {
      await directory.close();
      await front.close();
    }
  });
});

describe("the directory's state in the service log", () => {
  let tree: LdapTree;
  beforeAll(async () => {
    tree = await createLdapTree(inject('ldap'));
  });
  afterAll(() => tree.dispose());

  it('says once at warn that a URL cannot be used, with the cause and the setting, and at info when it answers again', async () => {
    const front = await tcpFront(tree.settings.DEA_LDAP_URL ?? '');
    front.become('refusing');
    const log = recordingLog();
    let now = Date.UTC(2026, 10, 26, 12);
    const directory = new LdapDirectory(
      testConfig({
        ...tree.settings,
        DEA_LDAP_URL: `${front.url},${tree.settings.DEA_LDAP_URL}`,
        DEA_LDAP_DEAD_SERVER_SECONDS: '60',
      }).directory as DirectoryConfig,
      () => now,
      log,
    );
    try {
      for (let request = 0; request < 5; request += 1) {
        expect(await directory.findUser('alice', { groups: false })).toBeDefined();
        expect(await directory.checkPassword(tree.dnOf('bob'), DIRECTORY_PEOPLE.bob.password)).toBe(true);
        // Its time is up and it is still refusing: probed again, and still one line.
        now += 61_000;
      }
      await expect.poll(() => front.connections()).toBeGreaterThanOrEqual(5);
      expect(log.lines).toHaveLength(1);
      expect(log.lines[0]).toMatchObject({
        level: 'warn',
        details: { url: front.url, check: 'DEA_LDAP_URL' },
      });
      expect(log.lines[0]?.message).toMatch(
        new RegExp(`^directory ${front.url} cannot be used: .+: check DEA_LDAP_URL$`),
      );

      front.become('forwarding');
      now += 61_000;
      await directory.findUser('alice', { groups: false });
      await expect.poll(() => log.lines.length).toBe(2);
      expect(log.lines[1]).toMatchObject({ level: 'info', message: `directory ${front.url} answers again` });
    } finally {
      await directory.close();
      await front.close();
    }
  });

  it('names the certificate settings when the certificate is refused, and the bind settings when the service account is', async () => {
    const log = recordingLog();
    const wrongCa = new LdapDirectory(
      testConfig({ ...tree.settings, DEA_LDAP_CA_FILE: '' }).directory as DirectoryConfig,
      Date.now,
      log,
    );
    await expect(wrongCa.findUser('alice')).rejects.toThrow(/DEA_LDAP_CA_FILE/);
    await expect(wrongCa.findUser('alice')).rejects.toThrow(/DEA_LDAP_CA_FILE/);
    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        details: expect.objectContaining({ check: 'DEA_LDAP_CA_FILE and DEA_LDAP_TLS_SERVER_NAME' }),
      }),
    ]);
    await wrongCa.close();

    const refusedLog = recordingLog();
    const refused = new LdapDirectory(
      { ...(testConfig(tree.settings).directory as DirectoryConfig), bindPassword: 'not-the-password' },
      Date.now,
      refusedLog,
    );
    await expect(refused.findUser('alice')).rejects.toThrow(/DEA_LDAP_BIND_PASSWORD_FILE/);
    await expect(refused.findUser('alice')).rejects.toThrow(/DEA_LDAP_BIND_PASSWORD_FILE/);
    expect(refusedLog.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: expect.stringMatching(
          /refused the service account .*: check DEA_LDAP_BIND_DN and DEA_LDAP_BIND_PASSWORD_FILE$/,
        ),
      }),
    ]);
    await refused.close();
  });
});
