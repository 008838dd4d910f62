import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { tcpFront } from '../testing/tcp-fronts.js';
import { DirectoryUnavailableError } from '../domain/identity/user-directory.js';
import { startLdapServer, type LdapServer } from '../testing/ldap-server.js';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../testing/ldap-tree.js';
import { testConfig } from '../testing/test-app.js';
import type { DirectoryConfig } from './directory-settings.js';
import { LdapDirectory } from './ldap-directory.js';

function directoryOf(settings: Record<string, string>, now: () => number = Date.now): LdapDirectory {
  return new LdapDirectory(testConfig(settings).directory as DirectoryConfig, now);
}

describe('connections to the directory', () => {
  let tree: LdapTree;
  beforeAll(async () => {
    tree = await createLdapTree(inject('ldap'));
  });
  afterAll(() => tree.dispose());

  it('passes over a server that did not answer, probes it in the background once its time is up, and uses it again once it answers', async () => {
    const dead = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
    try {
      let now = Date.UTC(2026, 10, 26, 12);
      const directory = directoryOf(
        {
          ...tree.settings,
          DEA_LDAP_URL: `${dead.url},${tree.settings.DEA_LDAP_URL}`,
          DEA_LDAP_TIMEOUT_SECONDS: '1',
          DEA_LDAP_DEAD_SERVER_SECONDS: '60',
        },
        () => now,
      );
      // The first call finds it dead (it waits out the timeout once) and is answered by the next URL.
      expect(await directory.findUser('alice')).toMatchObject({ username: 'alice' });
      expect(dead.connections()).toBe(1);
      // Within the minute, neither calls nor password checks go near it.
      expect(await directory.findUser('bob')).toMatchObject({ username: 'bob' });
      expect(await directory.checkPassword(tree.dnOf('alice'), DIRECTORY_PEOPLE.alice.password)).toBe(true);
      expect(dead.connections()).toBe(1);

      // Its time is up while it is still dead: a probe tries it, the call does not wait for it.
      now += 60_000;
      expect(await directory.findUser('alice')).toMatchObject({ username: 'alice' });
      await expect.poll(() => dead.connections()).toBe(2);
      // The probe gives up after the timeout; the server is passed over for another minute.
      await expect.poll(() => dead.open()).toBe(0);
      expect(await directory.findUser('bob')).toMatchObject({ username: 'bob' });
      expect(dead.connections()).toBe(2);

      // It comes back: the next probe gets through, and calls go to it first again.
      dead.become('forwarding');
      now += 61_000;
      await directory.findUser('alice');
      await expect.poll(() => dead.connections()).toBe(3);
      await expect
        .poll(async () => {
          const before = dead.connections();
          await directory.findUser('carol');
          return dead.connections() - before;
        })
        .toBe(1);
    } finally {
      await dead.close();
    }
  });

  it('tries every URL in order when all of them are passed over, and says which setting to check', async () => {
    const dead = await tcpFront(tree.settings.DEA_LDAP_URL ?? '', 'silent');
    try {
      const directory = directoryOf({
        ...tree.settings,
        DEA_LDAP_URL: dead.url,
        DEA_LDAP_TIMEOUT_SECONDS: '1',
      });
      const refused = await directory.findUser('alice').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DirectoryUnavailableError);
      expect((refused as Error).message).toMatch(/check DEA_LDAP_URL/);
      // Passed over, but the only one: the next call tries it again rather than failing unasked.
      dead.become('forwarding');
      expect(await directory.findUser('alice')).toMatchObject({ username: 'alice' });
    } finally {
      await dead.close();
    }
  });
});

describe("the directory's certificate, checked against the URL's host or DEA_LDAP_TLS_SERVER_NAME", () => {
  // A slapd of its own whose certificate names only dir.example.test and localhost, not 127.0.0.1.
  let server: LdapServer;
  let tree: LdapTree;
  beforeAll(async () => {
    server = await startLdapServer('DNS:dir.example.test,DNS:localhost');
    tree = await createLdapTree(server);
  });
  afterAll(async () => {
    await tree.dispose();
    await server.stop();
  });

  it('refuses StartTLS to an address the certificate does not name, naming the setting to check', async () => {
    // The URL is ldap://127.0.0.1:<port>: StartTLS once checked this certificate against "localhost".
    const refused = await directoryOf(tree.settings)
      .findUser('alice')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DirectoryUnavailableError);
    expect((refused as Error).message).toMatch(/127\.0\.0\.1/);
    expect((refused as Error).message).toMatch(/DEA_LDAP_TLS_SERVER_NAME/);
  });

  it('refuses ldaps:// to that address as well', async () => {
    const refused = await directoryOf({ ...tree.settings, DEA_LDAP_URL: server.ldapsUrl })
      .findUser('alice')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DirectoryUnavailableError);
  });

  it('takes the certificate for the name DEA_LDAP_TLS_SERVER_NAME gives, by StartTLS and by ldaps://', async () => {
    const named = { ...tree.settings, DEA_LDAP_TLS_SERVER_NAME: 'dir.example.test' };
    expect(await directoryOf(named).findUser('alice')).toMatchObject({ username: 'alice' });
    expect(await directoryOf({ ...named, DEA_LDAP_URL: server.ldapsUrl }).findUser('alice')).toMatchObject({
      username: 'alice',
    });
  });

  it('takes it by the host name of the URL when that is one the certificate names', async () => {
    const byName = { ...tree.settings, DEA_LDAP_URL: server.url.replace('127.0.0.1', 'localhost') };
    expect(await directoryOf(byName).findUser('alice')).toMatchObject({ username: 'alice' });
  });
});
