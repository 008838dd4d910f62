import type { ReactNode } from 'react';

/**
 * A coloured message box. `role="alert"` only for messages that appear because something just
 * went wrong; a static state (not authorized, no channel) is announced as part of the page.
 */
export function Alert({
  variant,
  children,
  announce = false,
  testId,
}: {
  variant: 'danger' | 'success' | 'info';
  children: ReactNode;
  announce?: boolean;
  testId?: string;
}) {
  return (
    <div className={`alert alert-${variant}`} role={announce ? 'alert' : undefined} data-testid={testId}>
      {children}
    </div>
  );
}
