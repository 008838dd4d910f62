import type { Language } from '@dea/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { applyDocumentLanguage } from '../../shared/i18n/document-language';
import { readStorage, writeStorage } from '../../shared/storage';
import { setConsoleCallLanguage } from '../api/console-call';
import {
  chooseConsoleLanguage,
  CONSOLE_LANGUAGES,
  createConsoleTranslator,
  ENGLISH_CONSOLE_TEXTS,
  loadConsoleTexts,
  type ConsoleTranslate,
} from './console-texts';

const LANGUAGE_STORAGE_KEY = 'dea.console.language';

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

/**
 * The console's language: the operator's stored choice, else the browser's, else English. The
 * document's lang and dir follow it (right-to-left for Arabic), and server messages come back in it.
 */
export function useConsoleLanguage(): ConsoleI18n | undefined {
  const [state, setState] = useState<{ language: string; t: ConsoleTranslate }>();
  const latest = useRef(0);

  const apply = useCallback((languageCode: string) => {
    const choice = ++latest.current;
    const show = (texts: typeof ENGLISH_CONSOLE_TEXTS) => {
      if (choice !== latest.current) return;
      applyDocumentLanguage(languageCode);
      setConsoleCallLanguage(languageCode);
      document.title = texts['console.title'];
      setState({ language: languageCode, t: createConsoleTranslator(texts) });
    };
    loadConsoleTexts(languageCode).then(show, (error: unknown) => {
      console.error('Console texts could not be loaded', error);
      show(ENGLISH_CONSOLE_TEXTS);
    });
  }, []);

  useEffect(() => {
    apply(chooseConsoleLanguage(readStorage('local', LANGUAGE_STORAGE_KEY) ?? null, navigator.languages));
  }, [apply]);

  const switchLanguage = useCallback(
    (languageCode: string) => {
      writeStorage('local', LANGUAGE_STORAGE_KEY, languageCode);
      apply(languageCode);
    },
    [apply],
  );

  return useMemo(() => {
    if (state === undefined) return undefined;
    const dates = new Intl.DateTimeFormat(state.language, { dateStyle: 'medium', timeStyle: 'medium' });
    return {
      language: state.language,
      languages: CONSOLE_LANGUAGES,
      t: state.t,
      formatTime: (iso: string) => dates.format(new Date(iso)),
      switchLanguage,
    };
  }, [state, switchLanguage]);
}
