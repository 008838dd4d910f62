import Type from 'typebox';
import { isAddressOrRange } from '../net/address-ranges.js';

export interface ValidateCheckConfig {
  /** Addresses and ranges that may call /validate/check without a service key. */
  clients: string[];
}

export const validateCheckSettings = {
  DEA_VALIDATE_CHECK_CLIENTS: {
    schema: Type.String({ default: '' }),
    doc: 'Addresses and CIDR ranges (10.0.0.5,10.1.0.0/16, loopback) of second-factor plugins that may call POST /validate/check without a service key; others need a service key with the scope verify. Empty: a key is always needed.',
  },
} as const;

/** The /validate/check part of the configuration; adds a line per problem to `problems`. */
export function validateCheckConfigOf(
  setting: (name: string) => string,
  problems: string[],
): ValidateCheckConfig {
  const text = setting('DEA_VALIDATE_CHECK_CLIENTS').trim();
  const clients = text === '' ? [] : text.split(',').map((entry) => entry.trim());
  const bad = clients.filter((entry) => !isAddressOrRange(entry));
  if (bad.length > 0) {
    problems.push(
      `DEA_VALIDATE_CHECK_CLIENTS="${text}": ${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
    );
  }
  return { clients: bad.length > 0 ? [] : clients };
}
