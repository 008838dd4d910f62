import { DEFAULT_LANGUAGE, formatText, type Language, type TextKey } from '@dea/contract';
import type { Store } from '../store/store.js';
import { chooseLanguage } from './language.js';

interface Cached<T> {
  value: T;
  until: number;
}

/**
 * Message catalogs and the language list, read from the store and kept for a short time so a
 * busy instance does not read them on every call, while an operator's change shows up soon.
 */
export class Catalogs {
  private languageList: Cached<Language[]> | undefined;
  private readonly dictionaries = new Map<string, Cached<Record<string, string>>>();

  constructor(
    private readonly store: Store,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async languages(): Promise<Language[]> {
    if (this.languageList && this.languageList.until > this.now()) return this.languageList.value;
    const rows = await this.store.catalogs.listLanguages();
    const value = rows.map((row) => ({ languageCode: row.code, languageName: row.name }));
    this.languageList = { value, until: this.now() + this.cacheMs };
    return value;
  }

  /** The catalog of the language, with English filling any key it lacks. */
  async dictionary(languageCode: string): Promise<Record<string, string>> {
    const cached = this.dictionaries.get(languageCode);
    if (cached && cached.until > this.now()) return cached.value;
    const own = await this.store.catalogs.messages(languageCode);
    const value =
      languageCode === DEFAULT_LANGUAGE ? own : { ...(await this.dictionary(DEFAULT_LANGUAGE)), ...own };
    this.dictionaries.set(languageCode, { value, until: this.now() + this.cacheMs });
    return value;
  }

  async choose(candidates: readonly (string | undefined)[]): Promise<string> {
    const languages = await this.languages();
    return chooseLanguage(
      candidates,
      languages.map((language) => language.languageCode),
    );
  }

  async text(
    languageCode: string,
    key: TextKey,
    values: Readonly<Record<string, string | number>> = {},
  ): Promise<string> {
    const dictionary = await this.dictionary(languageCode);
    return formatText(dictionary[key] ?? key, values);
  }

  forget(): void {
    this.languageList = undefined;
    this.dictionaries.clear();
  }
}
