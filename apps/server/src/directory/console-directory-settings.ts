import Type from 'typebox';
import { type OidcRoleMapping, rolesOf } from '../domain/console/console-oidc-settings.js';
import type { SettingValues } from '../setting-values.js';
import { normalizeDn } from './directory-settings.js';

/** Console roles from directory groups, for an organisation without an OpenID provider. */
export const consoleDirectorySettings = {
  DEA_CONSOLE_LDAP_ROLES: {
    schema: Type.String({ default: '{}' }),
    doc: 'A JSON object from a directory group\'s DN to a console role: {"cn=dea-admins,ou=groups,dc=example,dc=com": "admin", "cn=it-helpdesk,ou=groups,dc=example,dc=com": "helpdesk"}, with an optional scope as in DEA_CONSOLE_OIDC_ROLES ({"role": "helpdesk", "scope": ["Staff EU"]}). A member (nested groups count as DEA_LDAP_NESTED_GROUPS says) signs in to the console with the directory password, then a passkey (the first through an enrolment link of dea admin reset-passkeys); the role is read from the groups at every sign-in and every DEA_CONSOLE_LDAP_ROLE_REFRESH_SECONDS. Needs DEA_LDAP_URL. Empty ({}): console accounts are local or the OpenID provider\'s.',
  },
  DEA_CONSOLE_LDAP_ROLE_REFRESH_SECONDS: {
    schema: Type.Integer({ minimum: 30, maximum: 3600, default: 300 }),
    doc: "How often a console session of a directory person has its role read again from the directory's groups; someone removed from the group has no access from their next request after it.",
  },
} as const;

export interface ConsoleDirectoryConfig {
  /** Directory group DNs (normalizeDn's spelling) to the role each gives. */
  roles: ReadonlyMap<string, OidcRoleMapping>;
  roleRefreshMs: number;
}

/**
 * The directory part of the console's sign-in, or undefined when DEA_CONSOLE_LDAP_ROLES maps no
 * group; a bad value is a problem naming its setting.
 */
export function consoleDirectoryConfigOf(
  values: SettingValues<typeof consoleDirectorySettings>,
  directoryConfigured: boolean,
  problems: string[],
): ConsoleDirectoryConfig | undefined {
  const roles = rolesOf(
    values.DEA_CONSOLE_LDAP_ROLES,
    problems,
    'DEA_CONSOLE_LDAP_ROLES',
    '{"cn=dea-admins,ou=groups,dc=example,dc=com": "admin"}',
    normalizeDn,
  );
  if (roles.size === 0) return undefined;
  if (!directoryConfigured) {
    problems.push(
      'DEA_CONSOLE_LDAP_ROLES: maps directory groups to console roles, but no directory is set (DEA_LDAP_URL)',
    );
    return undefined;
  }
  return { roles, roleRefreshMs: values.DEA_CONSOLE_LDAP_ROLE_REFRESH_SECONDS * 1000 };
}
