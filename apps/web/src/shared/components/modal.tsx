import {
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
  type SyntheticEvent,
} from 'react';
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

/**
 * Keeps the element mounted while it fades out: true while open, and for the spec's 0.2 s after it
 * closes (none when the user asks for reduced motion).
 */
function useMountedWhileClosing(open: boolean): boolean {
  const [mounted, setMounted] = useState(open);
  useEffect(() => {
    if (open) {
      setMounted(true);
      return;
    }
    const delay = prefersReducedMotion() ? 0 : MODAL_CLOSE_ANIMATION_SECONDS * 1000;
    const timer = window.setTimeout(() => setMounted(false), delay);
    return () => window.clearTimeout(timer);
  }, [open]);
  return mounted;
}

/**
 * A native modal `<dialog>`: the browser keeps focus inside it and makes the page behind it inert.
 * Focus lands on the footer's first action and returns where it was when the dialog closes; the
 * fade-in and fade-out are CSS transitions on `[open]` (styles/_modal.scss).
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
  const dialogRef = useRef<HTMLDialogElement>(null);
  const mounted = useMountedWhileClosing(open);
  const wantedOpen = useRef(open);
  wantedOpen.current = open;

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!open || !mounted || dialog === null) return;
    const returnFocusTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    // The footer's first action (Cancel, OK, back to login) is the safe default to land on.
    dialog.querySelector('.modal-footer')?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    return () => {
      // Closed as soon as it is meant to close, so the page is usable again during the fade-out.
      dialog.close();
      if (returnFocusTo?.isConnected) returnFocusTo.focus();
    };
  }, [open, mounted]);

  if (!mounted) return null;

  // Escape is the user's request to dismiss; the browser's own close request (the `cancel` event)
  // is always refused so that the dialog's state stays the page's, not the browser's.
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    onClose?.();
  };
  const onCancel = (event: SyntheticEvent<HTMLDialogElement>) => {
    event.preventDefault();
    onClose?.();
  };
  // A close the page did not ask for (a platform's back gesture, say) dismisses a dismissible
  // dialog and is undone for one that may not be dismissed.
  const onNativeClose = (event: SyntheticEvent<HTMLDialogElement>) => {
    if (!wantedOpen.current) return;
    if (onClose) onClose();
    else event.currentTarget.showModal();
  };
  // A click on the backdrop reaches the dialog element itself; clicks on its content reach a child.
  const onClick = (event: MouseEvent<HTMLDialogElement>) => {
    if (event.target === event.currentTarget) onClose?.();
  };

  const Title = titleLevel === 1 ? 'h1' : 'h2';
  return createPortal(
    <dialog
      ref={dialogRef}
      className={`modal-dialog modal-${size}`}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      data-testid={testId}
      onKeyDown={onKeyDown}
      onCancel={onCancel}
      onClose={onNativeClose}
      onClick={onClick}
    >
      <div className="modal-content">
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
    </dialog>,
    document.body,
  );
}
