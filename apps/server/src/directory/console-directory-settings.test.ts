import { describe, expect, it } from 'vitest';
import { consoleDirectoryConfigOf } from './console-directory-settings.js';

const values = (roles: string) => ({
  DEA_CONSOLE_LDAP_ROLES: roles,
  DEA_CONSOLE_LDAP_ROLE_REFRESH_SECONDS: 300,
});

describe('DEA_CONSOLE_LDAP_ROLES', () => {
  it('maps group DNs in one spelling to roles, with a scope as DEA_CONSOLE_OIDC_ROLES has', () => {
    const problems: string[] = [];
    const config = consoleDirectoryConfigOf(
      values(
        JSON.stringify({
          'CN=DEA Admins, OU=Groups, DC=example,DC=com': 'admin',
          'cn=helpdesk-eu,ou=groups,dc=example,dc=com': { role: 'helpdesk', scope: ['Staff EU'] },
        }),
      ),
      true,
      problems,
    );
    expect(problems).toEqual([]);
    expect(config?.roleRefreshMs).toBe(300_000);
    expect(Object.fromEntries(config?.roles ?? [])).toEqual({
      'cn=dea admins,ou=groups,dc=example,dc=com': { role: 'admin' },
      'cn=helpdesk-eu,ou=groups,dc=example,dc=com': { role: 'helpdesk', scope: ['Staff EU'] },
    });
  });

  it('names the setting of every bad value, and asks for a directory', () => {
    const problems: string[] = [];
    consoleDirectoryConfigOf(
      values('{"cn=a": "root", "cn=b": {"role": "admin", "scope": ["X"]}}'),
      true,
      problems,
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^DEA_CONSOLE_LDAP_ROLES: "cn=a" maps to "root", not one of admin, helpdesk, auditor/,
      ),
      expect.stringMatching(/^DEA_CONSOLE_LDAP_ROLES: "cn=b"/),
    ]);
    const without: string[] = [];
    expect(consoleDirectoryConfigOf(values('{"cn=a": "admin"}'), false, without)).toBeUndefined();
    expect(without).toEqual([expect.stringContaining('DEA_LDAP_URL')]);
    const notJson: string[] = [];
    consoleDirectoryConfigOf(values('cn=a'), true, notJson);
    expect(notJson).toEqual([expect.stringMatching(/^DEA_CONSOLE_LDAP_ROLES: not JSON/)]);
    expect(consoleDirectoryConfigOf(values('{}'), false, [])).toBeUndefined();
  });
});
