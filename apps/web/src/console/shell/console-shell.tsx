import type { ConsoleMe } from '@dea/contract';
import type { ReactNode } from 'react';
import { AdministrationScreen } from '../administration/administration-screen';
import { AuditScreen } from '../audit/audit-screen';
import { HelpDeskScreen } from '../help-desk/help-desk-screen';
import { PeopleScreen } from '../people/people-screen';
import { ReportsScreen } from '../reports/reports-screen';
import { useConsoleI18n } from '../i18n/console-i18n';
import { hrefOf, screensOf, useConsoleRoute, type ConsoleScreen } from './console-route';
import { LanguageSelect } from './language-select';

const SCREEN_TITLE = {
  helpdesk: 'nav.helpdesk',
  reports: 'nav.reports',
  audit: 'nav.audit',
  administration: 'nav.administration',
  people: 'nav.people',
} as const;

/** The console's frame: its name, the screens of the account's role, the language and sign-out. */
export function ConsoleShell({
  me,
  onSignOut,
  children,
}: {
  me: ConsoleMe | undefined;
  onSignOut: () => Promise<void>;
  children?: ReactNode;
}) {
  const { t } = useConsoleI18n();
  return (
    <div className="page console">
      <a className="skip-link" href="#console-main">
        {t('skipToContent')}
      </a>
      <header className="page-header console-header">
        <span className="console-name">{t('title')}</span>
        {me && <ScreenNav me={me} />}
        <div className="header-right">
          <LanguageSelect />
          {me && (
            <>
              <span className="user-summary" data-testid="console-account">
                <span className="user-name">{me.displayName}</span>
                <span>{t(`role.${me.role}`)}</span>
              </span>
              <button
                type="button"
                className="btn btn-header"
                onClick={() => void onSignOut()}
                data-testid="console-sign-out"
              >
                {t('signOut')}
              </button>
            </>
          )}
        </div>
      </header>
      <main id="console-main" className="page-main console-main" tabIndex={-1}>
        {me ? <RoutedScreen me={me} /> : children}
      </main>
    </div>
  );
}

function ScreenNav({ me }: { me: ConsoleMe }) {
  const { t } = useConsoleI18n();
  const route = useConsoleRoute(me.role);
  return (
    <nav aria-label={t('nav.label')} className="console-nav">
      <ul>
        {screensOf(me.role).map((screen) => (
          <li key={screen}>
            <a href={hrefOf(screen)} aria-current={route.screen === screen ? 'page' : undefined}>
              {t(SCREEN_TITLE[screen])}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function RoutedScreen({ me }: { me: ConsoleMe }) {
  const route = useConsoleRoute(me.role);
  const screens: Record<ConsoleScreen, ReactNode> = {
    helpdesk: <HelpDeskScreen userId={route.rest[0] === 'user' ? route.rest[1] : undefined} />,
    reports: <ReportsScreen />,
    audit: <AuditScreen />,
    administration: <AdministrationScreen section={route.rest[0]} />,
    people: <PeopleScreen userId={route.rest[0]} />,
  };
  return screens[route.screen];
}
