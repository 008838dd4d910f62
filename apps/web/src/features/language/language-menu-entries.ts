import type { Language } from '@dea/contract';
import type { MenuEntry } from '../../shared/components/menu';

/**
 * One radio entry per offered language, each named in its own language (and marked so for
 * screen readers), the current one checked.
 */
export function languageMenuEntries(
  languages: readonly Language[],
  current: string,
  onSwitchLanguage: (languageCode: string) => void,
): MenuEntry[] {
  return languages.map(({ languageCode, languageName }) => ({
    id: `language-${languageCode}`,
    label: languageName,
    lang: languageCode.replace('_', '-'),
    checked: languageCode === current,
    onSelect: () => onSwitchLanguage(languageCode),
  }));
}
