import { useId } from 'react';
import { useConsoleI18n } from '../i18n/console-i18n';

/** The console's language, a native select (keyboard and screen readers know it). */
export function LanguageSelect() {
  const { t, language, languages, switchLanguage } = useConsoleI18n();
  const id = useId();
  return (
    <div className="console-language">
      <label htmlFor={id} className="visually-hidden">
        {t('language')}
      </label>
      <select
        id={id}
        value={language}
        onChange={(event) => switchLanguage(event.target.value)}
        data-testid="console-language"
      >
        {languages.map((entry) => (
          <option key={entry.languageCode} value={entry.languageCode} lang={entry.languageCode}>
            {entry.languageName}
          </option>
        ))}
      </select>
    </div>
  );
}
