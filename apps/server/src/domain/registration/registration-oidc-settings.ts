import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';
import { oidcClientOf } from '../oidc-client-settings.js';

/** The organisation's identity provider as a strong sign-in for the registration of channels. */
export const registrationOidcSettings = {
  DEA_OIDC_ISSUER: {
    schema: Type.String({ default: '' }),
    doc: "The organisation's OpenID provider (https://login.example.com/realms/staff) with which people open the registration of their channels; its ID token must show a second factor and an authentication at most five minutes old (auth_time). Empty: not offered.",
  },
  DEA_OIDC_CLIENT_ID: {
    schema: Type.String({ default: '' }),
    doc: 'The client id the channels page is registered under at DEA_OIDC_ISSUER (redirect URI: /dea/api/registration/oidc/callback under DEA_CHANNELS_URL).',
  },
  DEA_OIDC_CLIENT_SECRET_FILE: {
    schema: Type.String({ default: '' }),
    doc: "A file (mode 600) holding the client's secret at DEA_OIDC_ISSUER. Empty: a public client (PKCE only).",
  },
  DEA_OIDC_USERNAME_CLAIM: {
    schema: Type.String({ default: 'preferred_username' }),
    doc: "The ID token's claim that must name the person signed in with their password, exactly as their user name is stored (no case or width folded), at their first registration through DEA_OIDC_ISSUER: it links the provider's subject (iss and sub) to the person, and later registrations are compared by that subject alone.",
  },
  DEA_OIDC_MFA_ACR_VALUES: {
    schema: Type.String({ default: '' }),
    doc: 'acr values (comma-separated, compared exactly) that show a second factor at DEA_OIDC_ISSUER, besides amr holding mfa or mca or RFC 8176 methods of two factor classes (as DEA_CONSOLE_OIDC_REQUIRE_MFA says).',
  },
} as const;

export interface RegistrationOidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  usernameClaim: string;
  mfaAcrValues: string[];
  /** http on the loopback address (tests, a provider beside the server). */
  insecureLoopback: boolean;
}

/** The typed values as the domain uses them; undefined without DEA_OIDC_ISSUER. */
export function registrationOidcConfigOf(
  values: SettingValues<typeof registrationOidcSettings>,
  problems: string[],
): RegistrationOidcConfig | undefined {
  const client = oidcClientOf(
    {
      issuer: 'DEA_OIDC_ISSUER',
      clientId: 'DEA_OIDC_CLIENT_ID',
      clientSecretFile: 'DEA_OIDC_CLIENT_SECRET_FILE',
    },
    {
      issuer: values.DEA_OIDC_ISSUER,
      clientId: values.DEA_OIDC_CLIENT_ID,
      clientSecretFile: values.DEA_OIDC_CLIENT_SECRET_FILE,
    },
    problems,
  );
  if (client === undefined) return undefined;
  return {
    ...client,
    usernameClaim: values.DEA_OIDC_USERNAME_CLAIM.trim() || 'preferred_username',
    mfaAcrValues: values.DEA_OIDC_MFA_ACR_VALUES.split(',')
      .map((value) => value.trim())
      .filter((value) => value !== ''),
  };
}
