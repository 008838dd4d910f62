import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openCliFixture, type CliFixture } from '../testing/cli.js';
import { createLdapTree, type LdapTree } from '../testing/ldap-tree.js';

describe('dea directory test', () => {
  let tree: LdapTree;
  let cli: CliFixture;
  beforeAll(async () => {
    [tree, cli] = await Promise.all([createLdapTree(inject('ldap')), openCliFixture('sqlite')]);
  });
  afterAll(async () => {
    await tree.dispose();
    await cli.dispose();
  });

  it('connects to each URL and binds as the service account, then shows what the product takes over of a user', async () => {
    const { code, out } = await cli.run(['directory', 'test', 'alice'], { env: tree.settings });
    expect(out).toContain(
      `ok      ${tree.settings.DEA_LDAP_URL}: connected, bound as ${tree.settings.DEA_LDAP_BIND_DN}`,
    );
    expect(out).toContain(`dn        ${tree.dnOf('alice')}`);
    expect(out).toMatch(/^fullName {2}Alice Archer$/m);
    expect(out).toMatch(/^email {5}alice@dea\.test$/m);
    expect(out).toMatch(/^groups {4}VPN$/m);
    expect(code).toBe(0);
  });

  it('names each URL that fails and why, and a user it cannot find, with the settings to check (exit code 1)', async () => {
    const settings = { ...tree.settings, DEA_LDAP_URL: `ldap://127.0.0.1:1,${tree.settings.DEA_LDAP_URL}` };
    const failing = await cli.run(['directory', 'test'], { env: settings });
    expect(failing.out).toMatch(/^failed {2}ldap:\/\/127\.0\.0\.1:1: .*check DEA_LDAP_URL/m);
    expect(failing.out).toMatch(/^ok {6}ldap:\/\/127\.0\.0\.1:\d+: connected/m);
    expect(failing.code).toBe(1);

    const wrongPassword = await cli.run(['directory', 'test'], {
      env: { ...tree.settings, DEA_LDAP_BIND_DN: tree.dnOf('bob') },
    });
    expect(wrongPassword.out).toMatch(/refused the service account .*DEA_LDAP_BIND_PASSWORD_FILE/);
    expect(wrongPassword.code).toBe(1);

    const nobody = await cli.run(['directory', 'test', 'nobody-here'], { env: tree.settings });
    expect(nobody.out).toMatch(/no user "nobody-here" under .*check DEA_LDAP_USER_FILTER/);
    expect(nobody.code).toBe(1);
  });

  it('says when no directory is set', async () => {
    const { code, err } = await cli.run(['directory', 'test'], { env: { DEA_LDAP_URL: '' } });
    expect(err).toMatch(/no directory is set: DEA_LDAP_URL/);
    expect(code).toBe(1);
  });
});
