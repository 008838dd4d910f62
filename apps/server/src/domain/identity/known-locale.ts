/**
 * Whether the product knows a locale a source gives (the directory's preferredLanguage, say): its
 * language is one the product has a catalog for, exactly ('pt_BR') or by its primary part
 * ('de_AT' for 'de'), as the page's language rule (language.ts `chooseLanguage`) matches them.
 * An unknown one ('xx_YY') is reported and not stored: the user then falls back to the page's
 * language rule (the browser's languages, then English).
 */
export function isKnownLocale(locale: string, languages: readonly string[]): boolean {
  const known = new Set(languages.map((code) => code.toLowerCase()));
  const normalized = locale.trim().replace('-', '_').toLowerCase();
  return known.has(normalized) || known.has(normalized.split('_')[0] ?? '');
}
