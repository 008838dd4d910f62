import type { ReactNode, Ref } from 'react';

/**
 * A coloured message box. `role="alert"` only for messages that appear because something just
 * went wrong; a static state (not authorized, no channel) is announced as part of the page.
 * `focusable` lets a form move focus onto its error, so keyboard users land where they must read.
 */
export function Alert({
  variant,
  children,
  announce = false,
  focusable = false,
  id,
  ref,
  testId,
}: {
  variant: 'danger' | 'success' | 'info';
  children: ReactNode;
  announce?: boolean;
  focusable?: boolean;
  id?: string;
  ref?: Ref<HTMLDivElement>;
  testId?: string;
}) {
  return (
    <div
      ref={ref}
      id={id}
      className={`alert alert-${variant}`}
      role={announce ? 'alert' : undefined}
      tabIndex={focusable ? -1 : undefined}
      data-testid={testId}
    >
      {children}
    </div>
  );
}
