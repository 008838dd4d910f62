import type { ConsoleTranslate } from '../i18n/console-texts';
import { ConsoleCallError } from './console-call';

/**
 * What to tell the operator about a failed call: the server's own (translated) message when it
 * sent one, else what the status means and what to do about it.
 */
export function failureText(t: ConsoleTranslate, error: unknown): string {
  if (!(error instanceof ConsoleCallError)) return t('error.generic');
  if (error.status === 0) return t('error.network');
  if (error.status === 401) return t('error.signedOut');
  if (error.serverMessage !== undefined) {
    return error.status === 403 ? `${error.serverMessage} ${t('error.forbiddenHint')}` : error.serverMessage;
  }
  if (error.status === 403) return t('error.forbidden');
  if (error.status === 404) return t('error.notFound');
  if (error.status === 503) return t('error.unavailable');
  return t('error.generic');
}
