import type { Language } from '@dea/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { applyDocumentLanguage } from '../../shared/i18n/document-language';
import { readStorage, writeStorage } from '../../shared/storage';
import { setConsoleCallLanguage } from '../api/console-call';
import {
  chooseConsoleLanguage,
  createConsoleTranslator,
  loadConsoleLanguages,
  loadConsoleTexts,
  type ConsoleTranslate,
} from './console-texts';

export const LANGUAGE_STORAGE_KEY = 'dea.console.language';

export interface ConsoleI18n {
  language: string;
  languages: readonly Language[];
  t: ConsoleTranslate;
  /** A time as the console's language writes it, in the browser's time zone. */
  formatTime: (iso: string) => string;
  switchLanguage: (languageCode: string) => void;
}

const ConsoleI18nContext = createContext<ConsoleI18n | undefined>(undefined);
export const ConsoleI18nProvider = ConsoleI18nContext.Provider;

export function useConsoleI18n(): ConsoleI18n {
  const value = useContext(ConsoleI18nContext);
  if (value === undefined) throw new Error('useConsoleI18n outside ConsoleI18nProvider');
  return value;
}

/** Where the console's texts stand: loading, shown (`i18n`), or failed before any could be shown. */
export interface ConsoleLanguage {
  i18n: ConsoleI18n | undefined;
  /** The language list or the first texts could not be loaded: nothing to show them in. */
  failed: boolean;
  retry: () => void;
}

/**
 * The console's language: the operator's stored choice, else the browser's, else English, among
 * the languages of the product's catalogs; its texts are the catalog's `console.` group, as the
 * server has them (with an operator's changes). The document's lang and dir follow it
 * (right-to-left for Arabic), and server messages come back in it. A switch whose texts fail to
 * load leaves the console in the language it speaks.
 */
export function useConsoleLanguage(): ConsoleLanguage {
  const [state, setState] = useState<{
    language: string;
    languages: readonly Language[];
    t: ConsoleTranslate;
  }>();
  const [failed, setFailed] = useState(false);
  const latest = useRef(0);

  const apply = useCallback((languages: readonly Language[], languageCode: string) => {
    const choice = ++latest.current;
    loadConsoleTexts(languageCode).then(
      (messages) => {
        if (choice !== latest.current) return;
        const t = createConsoleTranslator(messages);
        applyDocumentLanguage(languageCode);
        setConsoleCallLanguage(languageCode);
        document.title = t('title');
        setState({ language: languageCode, languages, t });
      },
      (error: unknown) => {
        console.error(`The console's texts of '${languageCode}' could not be loaded`, error);
        if (choice === latest.current) setFailed(true);
      },
    );
  }, []);

  const start = useCallback(() => {
    const choice = ++latest.current;
    setFailed(false);
    loadConsoleLanguages().then(
      (languages) => {
        if (choice !== latest.current) return;
        const stored = readStorage('local', LANGUAGE_STORAGE_KEY) ?? null;
        apply(languages, chooseConsoleLanguage(stored, navigator.languages, languages));
      },
      (error: unknown) => {
        console.error("The console's languages could not be loaded", error);
        if (choice === latest.current) setFailed(true);
      },
    );
  }, [apply]);

  useEffect(start, [start]);

  const switchLanguage = useCallback(
    (languageCode: string) => {
      writeStorage('local', LANGUAGE_STORAGE_KEY, languageCode);
      if (state !== undefined) apply(state.languages, languageCode);
    },
    [apply, state],
  );

  const i18n = useMemo(() => {
    if (state === undefined) return undefined;
    const dates = new Intl.DateTimeFormat(state.language.replace('_', '-'), {
      dateStyle: 'medium',
      timeStyle: 'medium',
    });
    return {
      language: state.language,
      languages: state.languages,
      t: state.t,
      formatTime: (iso: string) => dates.format(new Date(iso)),
      switchLanguage,
    };
  }, [state, switchLanguage]);
  // Once texts are shown, a failed switch changes nothing on screen.
  return { i18n, failed: failed && state === undefined, retry: start };
}
