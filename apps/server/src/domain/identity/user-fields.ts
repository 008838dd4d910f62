import {
  type ChannelKey,
  checkUsername,
  LANGUAGE_CODE_PATTERN,
  SEND_TYPE_OF_CHANNEL,
  type Username,
  usernameRefusalText,
} from '@dea/contract';
import { canonicalAddress } from '../channels/recipients.js';
import { isTimeZone } from './time-zone.js';

/**
 * The rules of a user's fields, the same for every way users come in (the CLI, the import file,
 * SCIM). Each check answers the value as stored, or throws InvalidField saying what it must be.
 */
export class InvalidField extends Error {}

const LOCALE = new RegExp(LANGUAGE_CODE_PATTERN);

/**
 * A user name as a source or an operator gives it, in its canonical form (RFC 8265, ADR 0016):
 * the one spelling it is stored, compared, limited and audited under.
 */
export function validUsername(username: string): Username {
  const checked = checkUsername(username);
  if (!checked.ok) throw new InvalidField(`user name "${username}": ${usernameRefusalText(checked)}`);
  return checked.username;
}

export function validFullName(fullName: string, label = 'full name'): string {
  const trimmed = fullName.trim();
  if (trimmed === '' || trimmed.length > 200 || /\p{Cc}/u.test(trimmed))
    throw new InvalidField(`${label} must be 1 to 200 characters on one line`);
  return trimmed;
}

export function validLocale(locale: string, label = 'locale'): string {
  if (!LOCALE.test(locale) || locale.length > 35)
    throw new InvalidField(`${label} "${locale}" is not a language code such as en or pt_BR`);
  return locale;
}

/** An IANA time zone. */
export function validTimeZone(text: string, label = 'time zone'): string {
  if (!isTimeZone(text))
    throw new InvalidField(`${label} "${text}" is not a time zone such as Europe/Berlin or UTC`);
  return text;
}

/** The canonical address of the channel (recipients.ts), or a refusal saying what the type takes. */
export function validAddress(key: ChannelKey, address: string): string {
  const type = SEND_TYPE_OF_CHANNEL[key];
  const canonical = canonicalAddress(type, address);
  if (canonical !== undefined) return canonical;
  const wanted =
    type === 'smtp'
      ? 'an e-mail address such as name@example.com'
      : type === 'TWITTER'
        ? 'an X handle such as @name'
        : 'an international phone number such as +49 170 5550112 (or 0049 170 5550112)';
  throw new InvalidField(`${key} needs ${wanted}, not "${address}"`);
}
