import type { Language, UserInfo } from '@dea/contract';
import { BrandedHeader } from '../features/branding/components/branded-header';
import type { CustomBranding } from '../features/branding/resolve-branding';
import { languageMenuEntries } from '../features/language/language-menu-entries';
import { UserSummary } from '../features/user/components/user-summary';
import { Icon } from '../shared/components/icons';
import { Menu, type MenuEntry } from '../shared/components/menu';
import { useI18n } from '../shared/i18n/i18n-context';

export interface PageHeaderProps {
  branding: CustomBranding;
  user: UserInfo | undefined;
  languages: readonly Language[];
  onSwitchLanguage: (languageCode: string) => void;
  onLogout: () => void;
}

/** Logo, middle title, the user (or a custom right-hand header) and the user menu (spec section 2). */
export function PageHeader({ branding, user, languages, onSwitchLanguage, onLogout }: PageHeaderProps) {
  const { t, language } = useI18n();
  const menuEntries: MenuEntry[] = [
    {
      id: 'language',
      label: t('header.settings.language'),
      entries: languageMenuEntries(languages, language, onSwitchLanguage),
    },
    { id: 'logout', label: t('user.logout'), onSelect: onLogout },
  ];

  return (
    <BrandedHeader
      branding={branding}
      standIn={user && <UserSummary user={user} />}
      actions={
        <Menu
          label={t('header.userMenu')}
          buttonContent={<Icon name="user" />}
          buttonClassName="btn btn-header"
          align="end"
          entries={menuEntries}
          testId="user-menu"
        />
      }
    />
  );
}
