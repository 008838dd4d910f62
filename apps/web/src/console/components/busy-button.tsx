import type { ReactNode } from 'react';

/**
 * A button that shows its work: while `busy` it keeps its place, says `busyLabel` beside a small
 * spinner and cannot be pressed again.
 */
export function BusyButton({
  busy,
  busyLabel,
  children,
  variant = 'primary',
  type = 'button',
  onClick,
  disabled = false,
  testId,
  describedBy,
}: {
  busy: boolean;
  busyLabel: string;
  children: ReactNode;
  variant?: 'primary' | 'outline' | 'danger';
  type?: 'button' | 'submit';
  onClick?: () => void;
  disabled?: boolean;
  testId?: string;
  describedBy?: string;
}) {
  return (
    <button
      type={type}
      className={`btn btn-${variant}`}
      disabled={busy || disabled}
      aria-busy={busy}
      onClick={onClick}
      data-testid={testId}
      aria-describedby={describedBy}
    >
      {busy ? (
        <>
          <span className="spinner spinner-inline" aria-hidden="true" />
          <span>{busyLabel}</span>
        </>
      ) : (
        children
      )}
    </button>
  );
}
