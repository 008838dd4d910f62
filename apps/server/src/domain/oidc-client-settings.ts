import { OpenPrivateFileError, readPrivateFileSync } from '../files/private-files.js';

/** Where the product is an OpenID Connect client: the provider, and who the product is there. */
export interface OidcClient {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** http allowed: the issuer is on this host (tests, a provider beside the server). */
  insecureLoopback: boolean;
}

/** The names of one client's three settings (the console's, the registration's). */
export interface OidcClientSettingNames {
  issuer: string;
  clientId: string;
  clientSecretFile: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One rule for every OpenID Connect client of the product: the issuer (https, or http on this
 * host; no query or fragment), the client id it requires, and the secret read from a private
 * file. Undefined when no issuer is set or it is unusable; each bad value is a problem naming its
 * setting.
 */
export function oidcClientOf(
  names: OidcClientSettingNames,
  values: { issuer: string; clientId: string; clientSecretFile: string },
  problems: string[],
): OidcClient | undefined {
  const issuerText = values.issuer.trim();
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
      `${names.issuer}=${JSON.stringify(issuerText)}: must be the provider's issuer, such as https://login.example.com/realms/staff (https; http only on localhost; no query or fragment)`,
    );
    return undefined;
  }
  const clientId = values.clientId.trim();
  if (clientId === '')
    problems.push(`${names.clientId}: required with ${names.issuer} (the client id registered there)`);
  let clientSecret: string | undefined;
  const secretPath = values.clientSecretFile.trim();
  if (secretPath !== '') {
    try {
      clientSecret = readPrivateFileSync(secretPath)
        .toString('utf8')
        .replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(
        error instanceof OpenPrivateFileError
          ? `${names.clientSecretFile}: ${error.message}`
          : `${names.clientSecretFile}: cannot read ${secretPath} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (clientSecret === '') problems.push(`${names.clientSecretFile}: ${secretPath} is empty`);
  }
  return { issuer, clientId, clientSecret, insecureLoopback: issuer.protocol === 'http:' };
}
