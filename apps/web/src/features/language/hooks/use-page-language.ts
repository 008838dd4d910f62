import { choosePageLanguage, messageFileName, storedLanguage, type Language } from '@dea/contract';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { failureMessage } from '../../../api/failure-message';
import { getLanguageList, getMessages, getUserLocale } from '../../../api/methods';
import { setRequestLanguage } from '../../../api/request';
import { applyDocumentLanguage } from '../../../shared/i18n/document-language';
import type { I18n } from '../../../shared/i18n/i18n-context';
import type { PageMessage } from '../../../shared/i18n/page-message';
import { createTranslator, type Messages } from '../../../shared/i18n/translator';
import { usePromise, valueOf } from '../../../shared/hooks/use-promise';
import { keepSessionLanguage, readChosenLanguage, rememberChosenLanguage } from '../language-storage';

export interface PageLanguage {
  languages: readonly Language[];
  /** The language chosen, as soon as it is chosen (its texts may still be on their way). */
  chosenLanguage: string | undefined;
  /** Undefined until the texts of the chosen language are loaded. */
  i18n: I18n | undefined;
  /**
   * Set when the startup stopped before any texts were loaded (the language list or the texts
   * failed): the page can only say so with its built-in English texts (spec section 8).
   */
  failed: { error: unknown } | undefined;
  switchLanguage: (languageCode: string) => void;
}

/**
 * Chooses the language (spec section 4) and loads its texts.
 *
 * `userId`: the signed-in user whose locale counts, `undefined` while it is not known yet, or
 * `null` on pages without a user. One call after the other, as spec section 4 orders them: the
 * language list once the user is known, then the user's locale if the choice needs it, then the
 * chosen language's texts. A failed list or failed texts stop there (`failed`); nothing is kept.
 */
export function usePageLanguage(
  userId: string | null | undefined,
  report: (message: PageMessage) => void,
): PageLanguage {
  const [stored] = useState(readChosenLanguage);
  const [loaded, setLoaded] = useState<{ language: string; messages: Messages }>();
  const [failed, setFailed] = useState<{ error: unknown }>();
  const [chosen, setChosen] = useState<string>();
  const messageRequests = useRef(new Map<string, Promise<Messages>>());
  const reportRef = useRef(report);
  reportRef.current = report;

  const messagesOf = useCallback((languageCode: string): Promise<Messages> => {
    const file = messageFileName(languageCode);
    let pending = messageRequests.current.get(file);
    if (pending === undefined) {
      pending = getMessages(file);
      // A failed file may be asked for again later (the user picks the language once more).
      pending.catch(() => messageRequests.current.delete(file));
      messageRequests.current.set(file, pending);
    }
    return pending;
  }, []);

  // Each choice of a language (the startup's, each switch) asks for its texts; `switched` when the
  // person chose it. A later choice wins over an earlier whose texts are still on their way.
  const [asked, setAsked] = useState<{ languageCode: string; switched: boolean }>();
  const texts = usePromise(
    () =>
      asked &&
      messagesOf(asked.languageCode).then(
        (messages) => ({ ...asked, messages }),
        (error: unknown) => {
          console.error(`The texts of language '${asked.languageCode}' could not be loaded`, error);
          throw error;
        },
      ),
    [asked],
  );
  const loadedLanguage = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (texts.state === 'fulfilled') {
      const { languageCode, switched, messages } = texts.value;
      // A person's choice is kept only once its texts are in: a switch that failed is not
      // what later visits start with.
      if (switched) rememberChosenLanguage(languageCode);
      setRequestLanguage(languageCode);
      applyDocumentLanguage(languageCode);
      keepSessionLanguage(languageCode);
      loadedLanguage.current = languageCode;
      setLoaded({ language: languageCode, messages });
    } else if (texts.state === 'rejected') {
      // A switch that failed leaves the page in the language it speaks.
      if (loadedLanguage.current !== undefined) setChosen(loadedLanguage.current);
      setFailed({ error: texts.error });
      const message = failureMessage(texts.error);
      if (message) reportRef.current(message);
    }
  }, [texts]);

  const userKnown = userId !== undefined;
  const languageList = usePromise(
    (signal): Promise<readonly Language[]> | undefined => (userKnown ? getLanguageList(signal) : undefined),
    [userKnown],
  );
  const languages = valueOf(languageList);
  useEffect(() => {
    if (languageList.state === 'rejected')
      console.error('The language list could not be loaded', languageList.error);
  }, [languageList]);

  const storedIsOffered = languages !== undefined && storedLanguage(stored, languages) !== undefined;
  const needsUserLocale = typeof userId === 'string' && languages !== undefined && !storedIsOffered;

  // A failure is reported and the choice goes on without the user's locale.
  const userLocale = valueOf(
    usePromise(
      (signal) =>
        needsUserLocale && typeof userId === 'string'
          ? getUserLocale(userId, signal).then(
              (value) => ({ value }),
              (error: unknown) => {
                const message = signal.aborted ? undefined : failureMessage(error);
                if (message) reportRef.current({ key: 'error.userLocale', values: { message } });
                return { value: undefined };
              },
            )
          : undefined,
      [needsUserLocale, userId],
    ),
  );

  const ready = languages !== undefined && (storedIsOffered || userId === null || userLocale !== undefined);
  useEffect(() => {
    if (!ready || chosen !== undefined) return;
    const language = choosePageLanguage(
      { stored, userLocale: userLocale?.value, browserLanguage: navigator.language },
      languages,
    );
    setChosen(language);
    setAsked({ languageCode: language, switched: false });
  }, [ready, chosen, stored, userLocale, languages]);

  const switchLanguage = useCallback((languageCode: string) => {
    setChosen(languageCode);
    setAsked({ languageCode, switched: true });
  }, []);

  const i18n = useMemo<I18n | undefined>(
    () => (loaded ? { language: loaded.language, t: createTranslator(loaded.messages) } : undefined),
    [loaded],
  );
  return {
    languages: languages ?? [],
    chosenLanguage: chosen,
    i18n,
    failed:
      loaded !== undefined
        ? undefined
        : (failed ?? (languageList.state === 'rejected' ? { error: languageList.error } : undefined)),
    switchLanguage,
  };
}
