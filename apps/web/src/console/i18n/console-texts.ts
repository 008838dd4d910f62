import { BUILT_IN_LANGUAGES, formatText, type Language } from '@dea/contract';
import english from '../texts/en.json';

/** Every text of the console: the English catalog is the list of keys. */
export type ConsoleTextKey = keyof typeof english;
export type ConsoleTexts = Readonly<Record<ConsoleTextKey, string>>;
export type ConsoleTranslate = (
  key: ConsoleTextKey,
  values?: Readonly<Record<string, string | number>>,
) => string;

export const ENGLISH_CONSOLE_TEXTS: ConsoleTexts = english;

/** The catalogs other than English, loaded when chosen (one small chunk each). */
const catalogs = import.meta.glob<{ default: Partial<ConsoleTexts> }>([
  '../texts/*.json',
  '!../texts/en.json',
]);
const catalogOf = (languageCode: string) => catalogs[`../texts/${languageCode}.json`];

/** The product's languages the console has texts for, in the product's order. */
export const CONSOLE_LANGUAGES: readonly Language[] = BUILT_IN_LANGUAGES.filter(
  (language) => language.languageCode === 'en' || catalogOf(language.languageCode) !== undefined,
);

/**
 * The texts of a language; a text its catalog lacks is the English one (a test holds every
 * shipped catalog to the English keys).
 */
export async function loadConsoleTexts(languageCode: string): Promise<ConsoleTexts> {
  const load = catalogOf(languageCode);
  if (load === undefined) return ENGLISH_CONSOLE_TEXTS;
  return { ...ENGLISH_CONSOLE_TEXTS, ...(await load()).default };
}

export function createConsoleTranslator(texts: ConsoleTexts): ConsoleTranslate {
  return (key, values) => (values ? formatText(texts[key], values) : texts[key]);
}

/** The stored choice, else the browser's first language the console has, else English. */
export function chooseConsoleLanguage(stored: string | null, browserLanguages: readonly string[]): string {
  const known = (code: string | null | undefined) =>
    CONSOLE_LANGUAGES.find((language) => language.languageCode === code)?.languageCode;
  const fromStore = known(stored);
  if (fromStore) return fromStore;
  for (const preferred of browserLanguages) {
    const found = known(preferred) ?? known(preferred.split(/[-_]/)[0]?.toLowerCase());
    if (found) return found;
  }
  return 'en';
}
