import { createContext, useContext, type ReactNode } from 'react';
import type { Translate } from './translator';

export interface I18n {
  /** The chosen language code, e.g. 'de' or 'pt_BR'. */
  language: string;
  t: Translate;
}

const I18nContext = createContext<I18n | undefined>(undefined);

export function I18nProvider({ value, children }: { value: I18n; children: ReactNode }) {
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const i18n = useContext(I18nContext);
  if (i18n === undefined) throw new Error('useI18n needs an I18nProvider with loaded texts');
  return i18n;
}
