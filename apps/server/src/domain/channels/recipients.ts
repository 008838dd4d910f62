import type { SendType } from '@dea/contract';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * One recipient, one spelling. `+49 170 5550112`, `0049 170 5550112` and `+49 (0) 170 5550112`
 * reach one phone; `Alice@Example.COM` and `alice@example.com` one mailbox. Channels are stored
 * in the canonical form, and send limits count by it, so a limit cannot be dodged by respelling.
 */

/** An international number in E.164 (`+491705550112`); undefined when it is not a possible number. */
export function canonicalPhone(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^(\+|00)[1-9][\d\s()./-]*$/.test(trimmed)) return undefined;
  const phone = parsePhoneNumberFromString(trimmed.replace(/^00/, '+'));
  return phone?.isPossible() ? phone.number : undefined;
}

const EMAIL = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/;

/** The address with its domain in lower case; undefined when it is not one plain address. */
export function canonicalEmail(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length > 254 || !EMAIL.test(trimmed)) return undefined;
  const at = trimmed.lastIndexOf('@');
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/** X (Twitter) handles: @ and 1 to 15 letters, digits or underscores, as written. */
export function canonicalHandle(text: string): string | undefined {
  const trimmed = text.trim();
  return /^@\w{1,15}$/.test(trimmed) ? trimmed : undefined;
}

/** The canonical address of a channel of that send type; undefined when it is not one. */
export function canonicalAddress(type: SendType, text: string): string | undefined {
  switch (type) {
    case 'sms':
    case 'TELEPHONE':
      return canonicalPhone(text);
    case 'smtp':
      return canonicalEmail(text);
    case 'TWITTER':
      return canonicalHandle(text);
  }
}

/**
 * What a per-recipient limit counts: the canonical address, in lower case (mailbox providers and
 * X ignore case). Addresses stored before channels were canonical are normalised as well as
 * they can be.
 */
export function recipientIdentity(type: SendType, address: string): string {
  const canonical = canonicalAddress(type, address);
  if (canonical !== undefined) return canonical.toLowerCase();
  const spelled = address.trim().toLowerCase();
  return type === 'TWITTER' ? `@${spelled.replace(/^@/, '')}` : spelled.replace(/[\s\-().]/g, '');
}
