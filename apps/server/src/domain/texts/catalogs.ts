import { DEFAULT_LANGUAGE, formatText, type Language, type TextKey } from '@dea/contract';
import type { Store } from '../../store/store.js';
import { chooseLanguage } from './language.js';

interface Cached<T> {
  value: T;
  until: number;
}

/** What the product ships: the texts to fall back on while the store cannot be read. */
export interface ShippedCatalogs {
  languages: readonly Language[];
  messages: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/**
 * Message catalogs and the language list, read from the store and kept for a short time so a
 * busy instance does not read them on every call, while an operator's change shows up soon.
 * While the store cannot be read, the last texts read (or else the shipped ones) answer, so
 * that even "temporarily unavailable" reaches the user in their language.
 */
export class Catalogs {
  private languageList: Cached<Language[]> | undefined;
  private readonly dictionaries = new Map<string, Cached<Record<string, string>>>();

  constructor(
    private readonly store: Store,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
    private readonly shipped: ShippedCatalogs = { languages: [], messages: {} },
  ) {}

  async languages(): Promise<Language[]> {
    if (this.languageList && this.languageList.until > this.now()) return this.languageList.value;
    let rows;
    try {
      rows = await this.store.catalogs.listLanguages();
    } catch (error) {
      if (this.languageList) return this.languageList.value;
      if (this.shipped.languages.length > 0) return [...this.shipped.languages];
      throw error;
    }
    const value = rows.map((row) => ({ languageCode: row.code, languageName: row.name }));
    this.languageList = { value, until: this.now() + this.cacheMs };
    return value;
  }

  /** The catalog of the language, with English filling any key it lacks. */
  async dictionary(languageCode: string): Promise<Record<string, string>> {
    const cached = this.dictionaries.get(languageCode);
    if (cached && cached.until > this.now()) return cached.value;
    let own: Record<string, string>;
    try {
      own = await this.store.catalogs.messages(languageCode);
    } catch (error) {
      const fallback =
        cached?.value ?? this.shipped.messages[languageCode] ?? this.shipped.messages[DEFAULT_LANGUAGE];
      if (fallback === undefined) throw error;
      return { ...this.shipped.messages[DEFAULT_LANGUAGE], ...fallback };
    }
    const value =
      languageCode === DEFAULT_LANGUAGE ? own : { ...(await this.dictionary(DEFAULT_LANGUAGE)), ...own };
    this.dictionaries.set(languageCode, { value, until: this.now() + this.cacheMs });
    return value;
  }

  /** The first candidate with a catalog; null and undefined (a user without a language) are passed over. */
  async choose(candidates: readonly (string | null | undefined)[]): Promise<string> {
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

  /**
   * Drops what this instance cached, after a change made through it (the console); other instances
   * see the change when their cache runs out (DEA_CATALOG_CACHE_SECONDS).
   */
  forget(): void {
    this.languageList = undefined;
    this.dictionaries.clear();
  }
}
