import type { Language, UserInfo } from '@dea/contract';
import { BrandLogo } from '../features/branding/components/brand-logo';
import { BrandedHtml } from '../features/branding/components/branded-html';
import type { CustomBranding } from '../features/branding/resolve-branding';
import { UserSummary } from '../features/user/components/user-summary';
import { Icon } from '../shared/components/icons';
import { Menu, type MenuEntry } from '../shared/components/menu';
import { SafeHtml } from '../shared/components/safe-html';
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
      entries: languages.map(({ languageCode, languageName }) => ({
        id: `language-${languageCode}`,
        label: languageName,
        lang: languageCode.replace('_', '-'),
        checked: languageCode === language,
        onSelect: () => onSwitchLanguage(languageCode),
      })),
    },
    { id: 'logout', label: t('user.logout'), onSelect: onLogout },
  ];

  return (
    <header className="page-header">
      <div className="header-left">
        <BrandLogo branding={branding} />
      </div>
      <div className="header-middle" data-testid="header-middle">
        <BrandedHtml branding={branding} name="headerMiddle" fallback={t('app.title')} />
      </div>
      <div className="header-right">
        {branding.headerRight !== undefined ? (
          <div className="header-custom" data-testid="header-right-custom">
            <SafeHtml html={branding.headerRight} />
          </div>
        ) : (
          user && <UserSummary user={user} />
        )}
        <Menu
          label={t('header.userMenu')}
          buttonContent={<Icon name="user" />}
          buttonClassName="btn btn-header"
          align="end"
          entries={menuEntries}
          testId="user-menu"
        />
      </div>
    </header>
  );
}
