import type { ReactNode } from 'react';
import { useConsoleI18n } from '../i18n/console-i18n';

/**
 * A table of the console: a labelled region that scrolls sideways on a narrow screen (and can be
 * scrolled by keyboard), column headers, and an unnamed last column for row actions when asked.
 */
export function ConsoleTable({
  label,
  columns,
  actions = false,
  caption,
  testId,
  children,
}: {
  label: string;
  columns: readonly string[];
  actions?: boolean;
  caption?: string;
  testId?: string;
  children: ReactNode;
}) {
  const { t } = useConsoleI18n();
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table className="console-table" data-testid={testId}>
        {caption !== undefined && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">{t('actions')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
