import { Spinner } from '../shared/components/spinner';
import { ConsoleI18nProvider, useConsoleLanguage } from './i18n/console-i18n';
import { ConsoleSession } from './session/console-session';

/**
 * The help-desk and administration console at /admin/: its texts first (a few kilobytes, the
 * operator's language), then the session.
 */
export function ConsoleApp() {
  const i18n = useConsoleLanguage();
  if (i18n === undefined) return <Spinner label="Loading…" />;
  return (
    <ConsoleI18nProvider value={i18n}>
      <ConsoleSession />
    </ConsoleI18nProvider>
  );
}
