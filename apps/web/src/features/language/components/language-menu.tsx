import type { Language } from '@dea/contract';
import { Icon } from '../../../shared/components/icons';
import { Menu } from '../../../shared/components/menu';
import { useI18n } from '../../../shared/i18n/i18n-context';
import { languageMenuEntries } from '../language-menu-entries';

/**
 * A language picker of its own, for screens without a user menu (the login application). The
 * globe says what it is to someone who cannot read the current language.
 */
export function LanguageMenu({
  languages,
  onSwitchLanguage,
}: {
  languages: readonly Language[];
  onSwitchLanguage: (languageCode: string) => void;
}) {
  const { t, language } = useI18n();
  const label = t('header.settings.language');
  return (
    <Menu
      label={label}
      labelIsVisible
      buttonContent={
        <>
          <Icon name="globe" />
          <span>{label}</span>
        </>
      }
      buttonClassName="btn btn-header"
      align="end"
      entries={languageMenuEntries(languages, language, onSwitchLanguage)}
      testId="language-menu"
    />
  );
}
