import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { grantOfValues, roleOfValues } from './console-oidc.js';
import { consoleOidcConfigOf } from './console-oidc-settings.js';
import { testFolder } from '../../testing/test-folder.js';

const base = {
  DEA_CONSOLE_OIDC_ISSUER: 'https://login.example.com/realms/staff',
  DEA_CONSOLE_OIDC_CLIENT_ID: 'dea-console',
  DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: '',
  DEA_CONSOLE_OIDC_PROVIDER_NAME: '',
  DEA_CONSOLE_OIDC_SCOPES: 'openid profile email offline_access',
  DEA_CONSOLE_OIDC_ROLE_CLAIM: 'groups',
  DEA_CONSOLE_OIDC_ROLES: '{"dea-admins": "admin", "helpdesk": {"role": "helpdesk"}}',
  DEA_CONSOLE_OIDC_REQUIRE_MFA: true,
  DEA_CONSOLE_OIDC_MFA_ACR_VALUES: '',
  DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: 300,
};

function configOf(changes: Partial<typeof base>) {
  const problems: string[] = [];
  return { config: consoleOidcConfigOf({ ...base, ...changes }, problems), problems };
}

describe('the console OpenID settings', () => {
  test('off without an issuer; the name defaults to the host; roles map', () => {
    expect(configOf({ DEA_CONSOLE_OIDC_ISSUER: '' })).toEqual({ config: undefined, problems: [] });
    const { config, problems } = configOf({});
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      providerName: 'login.example.com',
      insecureLoopback: false,
      clientSecret: undefined,
    });
    expect(config && roleOfValues(['staff', 'helpdesk', 'dea-admins'], config)).toBe('admin');
    expect(config && roleOfValues(['helpdesk'], config)).toBe('helpdesk');
    expect(config && roleOfValues(['staff'], config)).toBeUndefined();
  });

  test("a person's scope is the groups of every value mapping to their role; one without a scope lifts it", () => {
    const { config } = configOf({
      DEA_CONSOLE_OIDC_ROLES: JSON.stringify({
        eu: { role: 'helpdesk', scope: ['Staff EU'] },
        us: { role: 'helpdesk', scope: 'Staff US' },
        all: 'helpdesk',
        audit: { role: 'auditor', scope: ['Finance'] },
      }),
    });
    expect(config && grantOfValues(['eu', 'us', 'audit'], config)).toEqual({
      role: 'helpdesk',
      scope: ['Staff EU', 'Staff US'],
    });
    expect(config && grantOfValues(['eu', 'all'], config)).toEqual({ role: 'helpdesk', scope: null });
    expect(config && grantOfValues(['audit'], config)).toEqual({ role: 'auditor', scope: ['Finance'] });
    expect(config && grantOfValues(['none'], config)).toBeUndefined();
  });

  test('each bad value names its setting', () => {
    expect(configOf({ DEA_CONSOLE_OIDC_ISSUER: 'http://login.example.com/' }).problems).toEqual([
      expect.stringContaining('DEA_CONSOLE_OIDC_ISSUER="http://login.example.com/": must be'),
    ]);
    expect(configOf({ DEA_CONSOLE_OIDC_ISSUER: 'http://localhost:8080/realms/x' }).config).toMatchObject({
      insecureLoopback: true,
    });
    expect(configOf({ DEA_CONSOLE_OIDC_CLIENT_ID: '' }).problems).toEqual([
      expect.stringContaining('DEA_CONSOLE_OIDC_CLIENT_ID: required'),
    ]);
    expect(configOf({ DEA_CONSOLE_OIDC_ROLES: '{"a": "root"}' }).problems).toEqual([
      'DEA_CONSOLE_OIDC_ROLES: "a" maps to "root", not one of admin, helpdesk, auditor',
    ]);
    expect(configOf({ DEA_CONSOLE_OIDC_ROLES: '[1]' }).problems).toEqual([
      expect.stringContaining('DEA_CONSOLE_OIDC_ROLES: must be a JSON object'),
    ]);
    // A scoped role: a help-desk or auditor role limited to the members of named groups.
    expect(
      configOf({ DEA_CONSOLE_OIDC_ROLES: '{"eu": {"role": "helpdesk", "scope": ["Staff EU", " Staff EU"]}}' })
        .config?.roles,
    ).toEqual(new Map([['eu', { role: 'helpdesk', scope: ['Staff EU'] }]]));
    expect(
      configOf({ DEA_CONSOLE_OIDC_ROLES: '{"eu": {"role": "auditor", "scope": "Staff EU"}}' }).config?.roles,
    ).toEqual(new Map([['eu', { role: 'auditor', scope: ['Staff EU'] }]]));
    expect(
      configOf({ DEA_CONSOLE_OIDC_ROLES: '{"eu": {"role": "admin", "scope": ["Staff EU"]}}' }).problems,
    ).toEqual(['DEA_CONSOLE_OIDC_ROLES: "eu": a scope limits only helpdesk or auditor, not admin']);
    expect(
      configOf({ DEA_CONSOLE_OIDC_ROLES: '{"eu": {"role": "helpdesk", "scope": []}}' }).problems,
    ).toEqual(['DEA_CONSOLE_OIDC_ROLES: "eu": a scope names at least one group']);
    expect(configOf({ DEA_CONSOLE_OIDC_ROLES: '{"eu": {"role": "helpdesk", "scope": 7}}' }).problems).toEqual(
      ['DEA_CONSOLE_OIDC_ROLES: "eu" has a scope that is not a group\'s name or a list of them'],
    );
    const folder = testFolder('oidc-secret');
    const open = join(folder, 'secret');
    writeFileSync(open, 'a secret\n');
    chmodSync(open, 0o644);
    expect(configOf({ DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: open }).problems).toEqual([
      expect.stringContaining(`DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: ${open} may be read by others`),
    ]);
    chmodSync(open, 0o600);
    expect(configOf({ DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: open }).config?.clientSecret).toBe('a secret');
  });
});
