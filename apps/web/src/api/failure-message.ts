import type { PageMessage } from '../shared/i18n/page-message';
import { EnvelopeError, isLeavingPage } from './api-error';

/**
 * What the user reads about a failed call (spec section 8): the server's own message for an
 * envelope error, the generic text for any other failure, and nothing when the page is already
 * leaving for login or logout.
 */
export function failureMessage(error: unknown): PageMessage | undefined {
  if (isLeavingPage(error)) return undefined;
  if (error instanceof EnvelopeError) return { serverText: error.serverMessage };
  return { key: 'error.generic' };
}
