import { DEFAULT_LANGUAGE, type Language } from '@dea/contract';

export interface LanguageCandidates {
  /** The user's own choice, kept in local storage. */
  stored: string | undefined;
  /** The user's locale from user/get ('de', 'pt_BR', 'de-AT'). */
  userLocale: string | undefined;
  /** The browser's language (navigator.language). */
  browserLanguage: string | undefined;
}

const normalize = (code: string): string => code.trim().replace(/-/g, '_').toLowerCase();
const primaryOf = (code: string): string => normalize(code).split('_')[0] ?? '';

function findExact(code: string | undefined, available: readonly Language[]): string | undefined {
  if (!code) return undefined;
  return available.find((language) => normalize(language.languageCode) === normalize(code))?.languageCode;
}

function findByPrimary(code: string | undefined, available: readonly Language[]): string | undefined {
  if (!code) return undefined;
  const primary = primaryOf(code);
  return (
    available.find((language) => normalize(language.languageCode) === primary) ??
    available.find((language) => primaryOf(language.languageCode) === primary)
  )?.languageCode;
}

/** The stored choice when the list offers it; spec section 4, priority (1). */
export function storedLanguage(
  stored: string | undefined,
  available: readonly Language[],
): string | undefined {
  return findExact(stored, available);
}

/**
 * Spec section 4: (1) the language stored locally, (2) the user's locale matched against the
 * list, (3) the browser language matched by its primary part, (4) 'en'.
 */
export function chooseLanguage(candidates: LanguageCandidates, available: readonly Language[]): string {
  return (
    storedLanguage(candidates.stored, available) ??
    findExact(candidates.userLocale, available) ??
    findByPrimary(candidates.userLocale, available) ??
    findByPrimary(candidates.browserLanguage, available) ??
    DEFAULT_LANGUAGE
  );
}
