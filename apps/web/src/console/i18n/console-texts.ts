import {
  API_BASE_PATH,
  formatText,
  messageFileName,
  PAGE_CALLS,
  type Language,
  type PageCall,
  type TextKey,
} from '@dea/contract';
import { addressOf, envelopeOf, fetchJson, isFailedEnvelope } from '../../shared/fetch/fetch-core';

/**
 * A text of the console's screens: a key of the product's catalogs in the group `console.`, named
 * without it (`signIn.heading` is the catalogs' `console.signIn.heading`).
 */
export type ConsoleTextKey = WithoutConsole<TextKey>;
type WithoutConsole<Key> = Key extends `console.${infer Rest}` ? Rest : never;
export type ConsoleTranslate = (
  key: ConsoleTextKey,
  values?: Readonly<Record<string, string | number>>,
) => string;

/** A catalog as GET message answers it (English fills what a language lacks): key -> text. */
export type ConsoleMessages = Readonly<Record<string, string>>;

/** The console's texts of a catalog; a text the catalog lacks shows its key. */
export function createConsoleTranslator(messages: ConsoleMessages): ConsoleTranslate {
  return (key, values) => {
    const text = messages[`console.${key}`] ?? `console.${key}`;
    return values ? formatText(text, values) : text;
  };
}

/** One of the page's public calls (languages, texts), as the page makes it; its answer's body. */
async function publicCall(call: PageCall, signal?: AbortSignal): Promise<unknown> {
  const answer = await fetchJson(addressOf(`${API_BASE_PATH}${call.path}`, call.query), { signal });
  if (!answer.ok) throw new Error(`${call.path} answered HTTP ${answer.status}`);
  return answer.body;
}

/** The languages of the product's catalogs (GET resourceFile/getLanguageList), as the page's. */
export async function loadConsoleLanguages(signal?: AbortSignal): Promise<Language[]> {
  const envelope = envelopeOf(await publicCall(PAGE_CALLS.languageList(), signal));
  if (envelope === undefined || isFailedEnvelope(envelope) || !Array.isArray(envelope.result))
    throw new Error('The language list could not be read');
  return envelope.result as Language[];
}

/** The catalog of a language (GET message), whose `console.` texts the console shows. */
export async function loadConsoleTexts(languageCode: string, signal?: AbortSignal): Promise<ConsoleMessages> {
  const body = await publicCall(PAGE_CALLS.messages(messageFileName(languageCode)), signal);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error(`The texts of '${languageCode}' could not be read`);
  return body as ConsoleMessages;
}

/** The stored choice, else the browser's first language the catalogs have, else English. */
export function chooseConsoleLanguage(
  stored: string | null,
  browserLanguages: readonly string[],
  available: readonly Language[],
): string {
  const known = (code: string | null | undefined) =>
    available.find((language) => language.languageCode === code)?.languageCode;
  const fromStore = known(stored);
  if (fromStore) return fromStore;
  for (const preferred of browserLanguages) {
    const found = known(preferred) ?? known(preferred.split(/[-_]/)[0]?.toLowerCase());
    if (found) return found;
  }
  return 'en';
}
