import { isTextKey, LANGUAGE_CODE_PATTERN, placeholdersOf, TEXT_KEYS } from '@dea/contract';
import { BUILT_IN_CATALOGS } from '../../i18n/built-in-catalogs.js';
import type { Store } from '../../store/store.js';
import { RuleError } from '../rule-error.js';

const ENGLISH: Readonly<Record<string, string>> = BUILT_IN_CATALOGS.en;

/**
 * Texts checked one by one, the rule of the CLI's import and the console: a known text key, a
 * non-empty string, and the same placeholders as the product's English text (a missing {code}
 * would send a message without it).
 */
export function checkTexts(content: unknown): Record<string, string> {
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw new RuleError('the texts must be one JSON object of text key -> text');
  const entries = Object.entries(content as Record<string, unknown>);
  const unknown = entries.filter(([key]) => !isTextKey(key)).map(([key]) => key);
  if (unknown.length > 0)
    throw new RuleError(
      `unknown text ${unknown.length === 1 ? 'key' : 'keys'}: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', ...' : ''}`,
    );
  for (const [key, text] of entries) {
    if (typeof text !== 'string' || text.trim() === '')
      throw new RuleError(`${key}: the text must be a non-empty string`);
    const expected = placeholdersOf(ENGLISH[key] ?? '');
    const actual = placeholdersOf(text);
    if (expected.join() !== actual.join()) {
      const shown = (names: string[]) =>
        names.length === 0 ? 'none' : names.map((name) => `{${name}}`).join(' ');
      throw new RuleError(`${key}: placeholders ${shown(actual)} differ from English ${shown(expected)}`);
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** Writes checked texts into a language that exists; answers how many were added and replaced. */
export async function importTexts(
  store: Store,
  code: string,
  texts: Record<string, string>,
  options: { overwrite: boolean; actor: string; now: number },
): Promise<{ added: number; replaced: number; differing: number }> {
  if (!(await store.catalogs.listLanguages()).some((row) => row.code === code))
    throw new RuleError(
      `unknown language ${code} (dea messages add-language ${code} <name> adds it)`,
      'missing',
    );
  const existing = await store.catalogs.messages(code);
  const keys = Object.keys(texts);
  const added = keys.filter((key) => !Object.hasOwn(existing, key)).length;
  const differing = keys.filter((key) => Object.hasOwn(existing, key) && existing[key] !== texts[key]).length;
  await store.catalogs.putMessages(code, texts, { overwrite: options.overwrite });
  const replaced = options.overwrite ? differing : 0;
  await store.audit.append(
    { event: 'messages.imported', actor: options.actor, details: { language: code, added, replaced } },
    options.now,
  );
  return { added, replaced, differing };
}

/** Every text key of a language beside its English text; null where the language has none. */
export async function textsBesideEnglish(
  store: Store,
  code: string,
): Promise<{ key: string; english: string; text: string | null }[]> {
  const own = await store.catalogs.messages(code);
  const english = await store.catalogs.messages('en');
  return TEXT_KEYS.map((key) => ({
    key,
    english: english[key] ?? ENGLISH[key] ?? '',
    text: Object.hasOwn(own, key) ? (own[key] ?? null) : null,
  }));
}

const LANGUAGE_CODE = new RegExp(LANGUAGE_CODE_PATTERN);

/** Why a text is not a language code (de, pt_BR, zh-Hans), or undefined. */
export function languageCodeProblem(code: string): string | undefined {
  return LANGUAGE_CODE.test(code) && code.length <= 35
    ? undefined
    : `"${code}" is not a language code such as de, pt_BR or zh-Hans`;
}

/**
 * A new language of the page, starting from the texts of another (English unless told), the rule
 * of the CLI and the console; audited. Answers how many texts it starts with.
 */
export async function addLanguage(
  store: Store,
  request: { code: string; name: string; from: string },
  actor: string,
  now: number,
): Promise<number> {
  const name = request.name.trim();
  const problem = languageCodeProblem(request.code) ?? languageCodeProblem(request.from);
  if (problem !== undefined) throw new RuleError(problem);
  if (name === '' || name.length > 100) throw new RuleError('the name must be 1 to 100 characters');
  const languages = await store.catalogs.listLanguages();
  if (!languages.some((row) => row.code === request.from))
    throw new RuleError(`unknown language ${request.from}`, 'missing');
  const texts = await store.catalogs.messages(request.from);
  // Added only when absent, decided by the store: of two writers at once, one adds it.
  if (!(await store.catalogs.addLanguage(request.code, name)))
    throw new RuleError(`language ${request.code} already exists`, 'conflict');
  await store.catalogs.putMessages(request.code, texts, { overwrite: false });
  await store.audit.append(
    { event: 'language.added', actor, details: { language: request.code, from: request.from } },
    now,
  );
  return Object.keys(texts).length;
}
