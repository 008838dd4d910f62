import type { Language } from '@dea/contract';
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { usePromise, valueOf } from '../../shared/hooks/use-promise';
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
  // Each attempt (the first, and each "Try again") loads the language list, and then the texts.
  const [attempt, setAttempt] = useState(0);
  const listed = usePromise((signal) => loadConsoleLanguages(signal), [attempt]);
  const languages = valueOf(listed);
  useEffect(() => {
    if (listed.state === 'rejected')
      console.error("The console's languages could not be loaded", listed.error);
  }, [listed]);

  // The operator's switch, counted: a switch loads its texts even when they are those shown.
  const [switched, setSwitched] = useState<{ languageCode: string; count: number }>();
  const texts = usePromise(
    (signal) => {
      if (languages === undefined) return undefined;
      const languageCode =
        switched?.languageCode ??
        chooseConsoleLanguage(
          readStorage('local', LANGUAGE_STORAGE_KEY) ?? null,
          navigator.languages,
          languages,
        );
      return loadConsoleTexts(languageCode, signal).then(
        (messages) => ({ languageCode, languages, messages }),
        (error: unknown) => {
          if (!signal.aborted)
            console.error(`The console's texts of '${languageCode}' could not be loaded`, error);
          throw error;
        },
      );
    },
    [languages, switched],
  );

  // The texts shown: those loaded last; a switch whose texts fail leaves them.
  const [state, setState] = useState<{
    language: string;
    languages: readonly Language[];
    t: ConsoleTranslate;
  }>();
  useEffect(() => {
    if (texts.state !== 'fulfilled') return;
    const { languageCode, languages: offered, messages } = texts.value;
    const t = createConsoleTranslator(messages);
    applyDocumentLanguage(languageCode);
    setConsoleCallLanguage(languageCode);
    document.title = t('title');
    setState({ language: languageCode, languages: offered, t });
  }, [texts]);

  const switchLanguage = useCallback(
    (languageCode: string) => {
      writeStorage('local', LANGUAGE_STORAGE_KEY, languageCode);
      if (state !== undefined) setSwitched((before) => ({ languageCode, count: (before?.count ?? 0) + 1 }));
    },
    [state],
  );
  const retry = useCallback(() => setAttempt((before) => before + 1), []);

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
  const failed = state === undefined && (listed.state === 'rejected' || texts.state === 'rejected');
  return { i18n, failed, retry };
}
