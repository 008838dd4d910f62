/**
 * The settings as they took effect, for people who may read them but never see a secret: a
 * setting that holds a secret (or may: headers, RADIUS clients, webhook addresses) shows only
 * whether it is set; an address shows without its user, password and query.
 */

/** Settings whose value is or may carry a secret: only "set" or "not set" is shown. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'DEA_SECRET',
  'DEA_SECRET_PREVIOUS',
  'DEA_AUDIT_HTTPS_SECRET',
  'DEA_SMTP_PASSWORD',
  'DEA_TWITTER_TOKEN',
  'DEA_SMS_HTTP_HEADERS',
  'DEA_SMS_HTTP_BODY',
  'DEA_VOICE_HTTP_HEADERS',
  'DEA_VOICE_HTTP_BODY',
  'DEA_TWITTER_HTTP_HEADERS',
  'DEA_TWITTER_HTTP_BODY',
  'DEA_RADIUS_CLIENTS',
  'DEA_WEBHOOKS',
  'DEA_WEBHOOK_SECRET',
]);

/** Query parameters and libpq keywords that hold a credential (an address's API key, a password). */
const CREDENTIAL_PARAMETER =
  /^(password|passwd|pass|secret|token|api[_-]?key|key|access[_-]?token|sslpassword)$/i;

/**
 * Whether an address (an `_URL` setting) carries a credential: a password in its user part
 * (`postgres://dea:secret@db/dea`), a credential parameter in its query (`?password=`, `?api_key=`),
 * or, for a libpq connection string (`host=db password=secret`), a password keyword.
 */
export function addressCarriesSecret(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return /(^|\s)(password|sslpassword)\s*=/i.test(text);
  }
  if (url.password !== '') return true;
  return [...url.searchParams.keys()].some((name) => CREDENTIAL_PARAMETER.test(name));
}

/** A setting name that looks like it may hold a secret; a test holds each one to a rule here. */
export const LOOKS_SECRET = /SECRET|PASSWORD|TOKEN|HEADERS|_BODY$|CLIENTS|WEBHOOKS|URL/;

export interface ShownSetting {
  name: string;
  value: string;
  isDefault: boolean;
  secret: boolean;
}

/** An address without user, password, query or fragment (an API key may hide in any of them). */
export function addressWithoutSecrets(text: string): string {
  try {
    const url = new URL(text);
    const hidden = url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '';
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return hidden ? `${url.href} (credentials and query hidden)` : url.href;
  } catch {
    return '(not shown: not an address)';
  }
}

/** A setting's value as text: settings are strings, numbers or booleans. */
const textOf = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';

export function effectiveSettings(
  table: Readonly<Record<string, { schema: object }>>,
  values: Readonly<Record<string, unknown>>,
): ShownSetting[] {
  return Object.entries(table).map(([name, { schema }]) => {
    const text = textOf(values[name]);
    const isDefault = text === textOf((schema as { default?: unknown }).default);
    if (SECRET_SETTINGS.has(name))
      return { name, value: text === '' ? '' : '(set)', isDefault, secret: true };
    if (name.endsWith('_URL') && text !== '')
      return { name, value: addressWithoutSecrets(text), isDefault, secret: false };
    return { name, value: text, isDefault, secret: false };
  });
}
