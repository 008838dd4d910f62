import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { useConsoleI18n } from '../i18n/console-i18n';

/**
 * A table of the console: a labelled region, column headers, and an unnamed last column for row
 * actions when asked. On a narrow screen (a phone, 390 px) each row stands as a block of its
 * cells, each cell led by its column's name (`data-label`), so nothing scrolls sideways; the
 * table keeps its roles (table, row, cell) for screen readers, which CSS display would drop.
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
  const table = useRef<HTMLTableElement>(null);
  // Every render: rows come from the caller's children, which change with what is shown.
  useLayoutEffect(() => {
    const element = table.current;
    if (element === null) return;
    element.setAttribute('role', 'table');
    for (const row of element.rows) {
      row.setAttribute('role', 'row');
      [...row.cells].forEach((cell, index) => {
        if (cell.tagName === 'TH') {
          cell.setAttribute('role', cell.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader');
        } else cell.setAttribute('role', 'cell');
        const column = columns[index];
        if (cell.tagName === 'TD' && column !== undefined) cell.dataset.label = column;
      });
    }
  });
  return (
    // Named apart from the section around it, which often bears the same title (landmark-unique).
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('tableRegion', { label })}>
      <table className="console-table" data-testid={testId} ref={table}>
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
