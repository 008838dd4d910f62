import Type from 'typebox';
import { OpenPrivateFileError, readPrivateFileSync } from '../files/private-files.js';
import type { SettingValues } from '../setting-values.js';

/** The organisation's identity provider as a strong sign-in for the registration of channels (issue 32). */
export const registrationOidcSettings = {
  DEA_OIDC_ISSUER: {
    schema: Type.String({ default: '' }),
    doc: "The organisation's OpenID provider (https://login.example.com/realms/staff) with which people open the registration of their channels; its ID token must show a second factor. Empty: not offered.",
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
    doc: "The ID token's claim that must name the person signed in with their password (compared in the canonical form of user names).",
  },
  DEA_OIDC_MFA_ACR_VALUES: {
    schema: Type.String({ default: '' }),
    doc: 'acr values (comma-separated) that show a second factor at DEA_OIDC_ISSUER, besides amr holding mfa, mca or two methods.',
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

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The typed values as the domain uses them; undefined without DEA_OIDC_ISSUER. */
export function registrationOidcConfigOf(
  values: SettingValues<typeof registrationOidcSettings>,
  problems: string[],
): RegistrationOidcConfig | undefined {
  const issuerText = values.DEA_OIDC_ISSUER.trim();
  if (issuerText === '') return undefined;
  let issuer: URL | undefined;
  try {
    issuer = new URL(issuerText);
  } catch {
    issuer = undefined;
  }
  const loopback = issuer !== undefined && LOOPBACK.has(issuer.hostname);
  if (
    issuer === undefined ||
    !(issuer.protocol === 'https:' || (issuer.protocol === 'http:' && loopback)) ||
    issuer.search !== '' ||
    issuer.hash !== ''
  ) {
    problems.push(
      `DEA_OIDC_ISSUER=${JSON.stringify(issuerText)}: must be the provider's issuer, such as https://login.example.com/realms/staff (https; http only on localhost; no query or fragment)`,
    );
    return undefined;
  }
  const clientId = values.DEA_OIDC_CLIENT_ID.trim();
  if (clientId === '')
    problems.push('DEA_OIDC_CLIENT_ID: required with DEA_OIDC_ISSUER (the client id registered there)');
  let clientSecret: string | undefined;
  const secretPath = values.DEA_OIDC_CLIENT_SECRET_FILE.trim();
  if (secretPath !== '') {
    try {
      clientSecret = readPrivateFileSync(secretPath)
        .toString('utf8')
        .replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(
        error instanceof OpenPrivateFileError
          ? `DEA_OIDC_CLIENT_SECRET_FILE: ${error.message}`
          : `DEA_OIDC_CLIENT_SECRET_FILE: cannot read ${secretPath} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (clientSecret === '') problems.push(`DEA_OIDC_CLIENT_SECRET_FILE: ${secretPath} is empty`);
  }
  return {
    issuer,
    clientId,
    clientSecret,
    usernameClaim: values.DEA_OIDC_USERNAME_CLAIM.trim() || 'preferred_username',
    mfaAcrValues: values.DEA_OIDC_MFA_ACR_VALUES.split(',')
      .map((value) => value.trim())
      .filter((value) => value !== ''),
    insecureLoopback: issuer.protocol === 'http:',
  };
}
