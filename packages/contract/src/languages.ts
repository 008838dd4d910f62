import { DEFAULT_LANGUAGE } from './constants.js';

/** Languages the product ships a complete catalog for. */
export const BUILT_IN_LANGUAGES = [
  { languageCode: 'en', languageName: 'English' },
  { languageCode: 'de', languageName: 'Deutsch' },
  { languageCode: 'fr', languageName: 'Français' },
  { languageCode: 'es', languageName: 'Español' },
  { languageCode: 'it', languageName: 'Italiano' },
  { languageCode: 'nl', languageName: 'Nederlands' },
  { languageCode: 'pt', languageName: 'Português' },
  { languageCode: 'pl', languageName: 'Polski' },
  { languageCode: 'ja', languageName: '日本語' },
  { languageCode: 'zh', languageName: '简体中文' },
  { languageCode: 'ar', languageName: 'العربية' },
] as const;

export const RIGHT_TO_LEFT_LANGUAGES: readonly string[] = ['ar', 'he', 'fa', 'ur'];

/** A language code: 'en', 'pt_BR', 'zh-Hans'. */
export const LANGUAGE_CODE_PATTERN = '^[a-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$';

/** Message files are 'messages' for English and 'messages_{code}' for the others (spec section 4). */
export function messageFileName(languageCode: string): string {
  return languageCode === DEFAULT_LANGUAGE ? 'messages' : `messages_${languageCode}`;
}

/** The `lang` query value of GET message: the file name without 'messages_' or 'messages'. */
export function langParamOfMessageFile(fileName: string): string | undefined {
  const lang = fileName.replace(/^messages_?/, '');
  return lang === '' ? undefined : lang;
}

/** The `locale` sent to the server: what follows the first underscore of the file name, or 'en'. */
export function localeOfMessageFile(fileName: string): string {
  const underscore = fileName.indexOf('_');
  const locale = underscore < 0 ? '' : fileName.slice(underscore + 1);
  return locale === '' ? DEFAULT_LANGUAGE : locale;
}

export function isRightToLeft(languageCode: string): boolean {
  const primary = languageCode.split(/[_-]/)[0] ?? '';
  return RIGHT_TO_LEFT_LANGUAGES.includes(primary.toLowerCase());
}
