import { localeOfMessageFile, messageFileName } from '@dea/contract';

/** The `locale` sent with code requests (spec section 7): derived from the message file name. */
export function serverLocale(languageCode: string): string {
  return localeOfMessageFile(messageFileName(languageCode));
}
