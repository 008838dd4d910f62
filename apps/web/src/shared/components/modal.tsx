import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { MODAL_CLOSE_ANIMATION_SECONDS } from '@dea/contract';

export interface ModalProps {
  open: boolean;
  title: ReactNode;
  children: ReactNode;
  footer: ReactNode;
  /** Omitted for a modal that cannot be dismissed (no close button, Escape or backdrop). */
  onClose?: () => void;
  closeLabel?: string;
  size?: 'sm' | 'md' | 'lg';
  titleLevel?: 1 | 2;
  testId?: string;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function prefersReducedMotion(): boolean {
  return (
    typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
  );
}

/** While a modal is open the page behind it is inert: no focus, no clicks, hidden from readers. */
function useInertPage(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const page = document.getElementById('root');
    if (page === null) return;
    page.inert = true;
    return () => {
      page.inert = false;
    };
  }, [active]);
}

/**
 * A dialog over the page: focus moves into it and stays there, and returns where it was when the
 * dialog closes. Closing fades out for the spec's 0.2 s (none when the user asks for reduced motion).
 */
export function Modal({
  open,
  title,
  children,
  footer,
  onClose,
  closeLabel,
  size = 'md',
  titleLevel = 2,
  testId,
}: ModalProps) {
  const titleId = useId();
  const bodyId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const returnFocusTo = useRef<HTMLElement | null>(null);
  const [rendered, setRendered] = useState(open);
  const [shown, setShown] = useState(false);

  useEffect(() => {
    if (open) {
      setRendered(true);
      return;
    }
    setShown(false);
    const delay = prefersReducedMotion() ? 0 : MODAL_CLOSE_ANIMATION_SECONDS * 1000;
    const timer = window.setTimeout(() => setRendered(false), delay);
    return () => window.clearTimeout(timer);
  }, [open]);

  // Declared before the focus effect: on closing, the page must be usable again before focus returns.
  useInertPage(open && rendered);

  useEffect(() => {
    if (!open || !rendered) return;
    returnFocusTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    // The footer's first action (Cancel, OK, back to login) is the safe default to land on.
    const first = dialog?.querySelector('.modal-footer')?.querySelector<HTMLElement>(FOCUSABLE) ?? dialog;
    first?.focus();
    const frame = window.requestAnimationFrame(() => setShown(true));
    return () => {
      window.cancelAnimationFrame(frame);
      const target = returnFocusTo.current;
      if (target?.isConnected) target.focus();
    };
  }, [open, rendered]);

  if (!rendered) return null;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose?.();
      return;
    }
    if (event.key !== 'Tab' || dialogRef.current === null) return;
    const focusable = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (first === undefined || last === undefined) {
      event.preventDefault();
      return;
    }
    if (
      event.shiftKey &&
      (document.activeElement === first || document.activeElement === dialogRef.current)
    ) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const Title = titleLevel === 1 ? 'h1' : 'h2';
  return createPortal(
    <div className={`modal-layer${shown && open ? ' show' : ''}`} data-testid={testId}>
      <div className="modal-backdrop" onClick={onClose} aria-hidden="true" />
      <div
        ref={dialogRef}
        className={`modal-dialog modal-${size}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={bodyId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="modal-header">
          <Title id={titleId} className="modal-title">
            {title}
          </Title>
          {onClose && (
            <button type="button" className="btn-close" aria-label={closeLabel} onClick={onClose}>
              <span aria-hidden="true">×</span>
            </button>
          )}
        </div>
        <div className="modal-body" id={bodyId}>
          {children}
        </div>
        <div className="modal-footer">{footer}</div>
      </div>
    </div>,
    document.body,
  );
}
