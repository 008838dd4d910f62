import type { TextKey } from './text-keys.js';

/** Envelope error numbers (`error` field). 0 means success. */
export const ErrorNumber = {
  ok: 0,
  internal: 1,
  invalidRequest: 2,
  notPermitted: 3,
  unknownChannel: 130,
  tooManyRequests: 140,
  codeStoreFull: 148,
  deliveryFailed: 150,
} as const;

export type ErrorNumber = (typeof ErrorNumber)[keyof typeof ErrorNumber];

/** The catalog text that explains each error number to a person. */
export const ERROR_TEXT_KEYS: Record<Exclude<ErrorNumber, 0>, TextKey> = {
  [ErrorNumber.internal]: 'error.internal',
  [ErrorNumber.invalidRequest]: 'error.invalidRequest',
  [ErrorNumber.notPermitted]: 'error.notPermitted',
  [ErrorNumber.unknownChannel]: 'error.unknownChannel',
  [ErrorNumber.tooManyRequests]: 'error.tooManyRequests',
  [ErrorNumber.codeStoreFull]: 'error.codeStoreFull',
  [ErrorNumber.deliveryFailed]: 'error.deliveryFailed',
};
