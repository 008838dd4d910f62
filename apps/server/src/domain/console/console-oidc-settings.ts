import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';
import { CONSOLE_ROLES, type ConsoleRole } from '../../store/store.js';
import { checkedScope } from './console-scope.js';
import { oidcClientOf } from '../oidc-client-settings.js';

/** The console's sign-in with the organisation's OpenID provider (ADR 0020). */
export const consoleOidcSettings = {
  DEA_CONSOLE_OIDC_ISSUER: {
    schema: Type.String({ default: '' }),
    doc: "The OpenID provider the console's people sign in with (its issuer, https://login.example.com/realms/staff); its configuration is discovered from there. Empty: local console accounts only. http only for a provider on this host (localhost, 127.0.0.1, ::1).",
  },
  DEA_CONSOLE_OIDC_CLIENT_ID: {
    schema: Type.String({ default: '' }),
    doc: 'The client id the console is registered under at DEA_CONSOLE_OIDC_ISSUER.',
  },
  DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: {
    schema: Type.String({ default: '' }),
    doc: "A file (mode 600) holding the client's secret at DEA_CONSOLE_OIDC_ISSUER. Empty: a public client (PKCE only).",
  },
  DEA_CONSOLE_OIDC_PROVIDER_NAME: {
    schema: Type.String({ default: '' }),
    doc: 'The provider\'s name on the console\'s "Sign in with …" button. Empty: the host name of DEA_CONSOLE_OIDC_ISSUER.',
  },
  DEA_CONSOLE_OIDC_SCOPES: {
    schema: Type.String({ default: 'openid profile email offline_access' }),
    doc: 'The scopes the console asks for (space-separated; openid is always asked). offline_access gives the refresh token with which roles are checked again without a new sign-in.',
  },
  DEA_CONSOLE_OIDC_ROLE_CLAIM: {
    schema: Type.String({ minLength: 1, default: 'groups' }),
    doc: 'The claim of the ID token (or, when the ID token lacks it, of the userinfo answer) whose values DEA_CONSOLE_OIDC_ROLES maps to console roles.',
  },
  DEA_CONSOLE_OIDC_ROLES: {
    schema: Type.String({ default: '{}' }),
    doc: 'A JSON object from a value of DEA_CONSOLE_OIDC_ROLE_CLAIM to a console role: {"dea-admins": "admin", "it-helpdesk": "helpdesk", "auditors": "auditor"}. A person with several mapped values gets the first of admin, helpdesk, auditor; with none, no access. A help-desk or auditor role may be limited to the members of named groups: {"it-helpdesk-eu": {"role": "helpdesk", "scope": ["Staff EU"]}}; someone outside is answered as a user that does not exist.',
  },
  DEA_CONSOLE_OIDC_REQUIRE_MFA: {
    schema: Type.Boolean({ default: true }),
    doc: 'The ID token must show a second factor: amr holding mfa or mca, or RFC 8176 methods of two factor classes (something known: pwd, pin, kba; held: otp, hwk, swk, sc, sms, tel, pop; of the body: face, fpt, iris, retina, vbm; so pwd and otp, never pwd and kba, and geo, rba, user or wia count for nothing), or an acr of DEA_CONSOLE_OIDC_MFA_ACR_VALUES; else the sign-in is refused with that reason.',
  },
  DEA_CONSOLE_OIDC_MFA_ACR_VALUES: {
    schema: Type.String({ default: '' }),
    doc: 'acr values (comma-separated, compared exactly) that show a second factor at this provider (Keycloak: the level of your step-up flow, such as 2); the PAPE multi-factor policy URI always counts.',
  },
  DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS: {
    schema: Type.Integer({ minimum: 30, maximum: 3600, default: 300 }),
    doc: "How often a signed-in person's roles are taken again from the provider (refresh token); a person whose claim no longer maps has no access from their next request after it. Without a refresh token the session ends then.",
  },
} as const;

/** A mapped claim value: the role it gives. */
export interface OidcRoleMapping {
  role: ConsoleRole;
  /** The groups whose members alone the role sees (console-scope.ts); absent: everyone. */
  scope?: readonly string[];
}

export interface ConsoleOidcConfig {
  issuer: URL;
  clientId: string;
  /** Undefined: a public client. */
  clientSecret: string | undefined;
  providerName: string;
  scopes: string;
  roleClaim: string;
  roles: ReadonlyMap<string, OidcRoleMapping>;
  requireMfa: boolean;
  mfaAcrValues: readonly string[];
  roleRefreshMs: number;
  /** http allowed: the issuer is on this host (tests, a provider beside the server). */
  insecureLoopback: boolean;
}

/**
 * The OpenID Connect part of the console's configuration, or undefined when no issuer is set; a
 * bad value is a problem naming its setting.
 */
export function consoleOidcConfigOf(
  values: SettingValues<typeof consoleOidcSettings>,
  problems: string[],
): ConsoleOidcConfig | undefined {
  const client = oidcClientOf(
    {
      issuer: 'DEA_CONSOLE_OIDC_ISSUER',
      clientId: 'DEA_CONSOLE_OIDC_CLIENT_ID',
      clientSecretFile: 'DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE',
    },
    {
      issuer: values.DEA_CONSOLE_OIDC_ISSUER,
      clientId: values.DEA_CONSOLE_OIDC_CLIENT_ID,
      clientSecretFile: values.DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE,
    },
    problems,
  );
  if (client === undefined) return undefined;
  const { issuer } = client;
  const scopes = new Set(['openid', ...values.DEA_CONSOLE_OIDC_SCOPES.split(/\s+/).filter((s) => s !== '')]);
  return {
    ...client,
    providerName: values.DEA_CONSOLE_OIDC_PROVIDER_NAME.trim() || issuer.hostname,
    scopes: [...scopes].join(' '),
    roleClaim: values.DEA_CONSOLE_OIDC_ROLE_CLAIM.trim(),
    roles: rolesOf(values.DEA_CONSOLE_OIDC_ROLES, problems),
    requireMfa: values.DEA_CONSOLE_OIDC_REQUIRE_MFA,
    mfaAcrValues: values.DEA_CONSOLE_OIDC_MFA_ACR_VALUES.split(',')
      .map((value) => value.trim())
      .filter((value) => value !== ''),
    roleRefreshMs: values.DEA_CONSOLE_OIDC_ROLE_REFRESH_SECONDS * 1000,
  };
}

/**
 * A JSON map from a value (a claim's, a directory group's DN) to a console role, optionally
 * scoped; each bad entry is a problem naming `setting`. `keyOf` gives a value's one spelling.
 */
export function rolesOf(
  text: string,
  problems: string[],
  setting = 'DEA_CONSOLE_OIDC_ROLES',
  example = '{"dea-admins": "admin", "it-helpdesk": "helpdesk"}',
  keyOf: (value: string) => string = (value) => value,
): Map<string, OidcRoleMapping> {
  const roles = new Map<string, OidcRoleMapping>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`${setting}: not JSON (${(error as Error).message}); expected ${example}`);
    return roles;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${setting}: must be a JSON object such as ${example}`);
    return roles;
  }
  for (const [value, mapping] of Object.entries(parsed)) {
    const role: unknown =
      typeof mapping === 'object' && mapping !== null ? (mapping as Record<string, unknown>).role : mapping;
    if (typeof role !== 'string' || !(CONSOLE_ROLES as readonly string[]).includes(role)) {
      problems.push(
        `${setting}: ${JSON.stringify(value)} maps to ${JSON.stringify(role)}, not one of ${CONSOLE_ROLES.join(', ')}`,
      );
      continue;
    }
    if (typeof mapping === 'object' && mapping !== null && 'scope' in mapping) {
      // A scoped role (console-scope.ts): a group's name, or a list of them.
      const given: unknown = (mapping as Record<string, unknown>).scope;
      const names = typeof given === 'string' ? [given] : given;
      const where = `${setting}: ${JSON.stringify(value)}`;
      if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
        problems.push(`${where} has a scope that is not a group's name or a list of them`);
        continue;
      }
      const checked = checkedScope(role as ConsoleRole, names, where);
      if ('problem' in checked) {
        problems.push(checked.problem);
        continue;
      }
      roles.set(keyOf(value), { role: role as ConsoleRole, scope: checked.scope });
      continue;
    }
    roles.set(keyOf(value), { role: role as ConsoleRole });
  }
  return roles;
}
