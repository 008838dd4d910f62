import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface MenuEntry {
  id: string;
  label: ReactNode;
  /** Language of the label when it differs from the page's (language names). */
  lang?: string;
  /** A radio-like entry (the current language) when set. */
  checked?: boolean;
  onSelect?: () => void;
  /** Entries of a submenu opened from this one. */
  entries?: readonly MenuEntry[];
}

export interface MenuProps {
  /** The accessible name of the menu button (and of the menu). */
  label: string;
  /** What the button shows: an icon, a text, or both. */
  buttonContent: ReactNode;
  /** Hide `label` visually when the button content already says it (icon plus text). */
  labelIsVisible?: boolean;
  entries: readonly MenuEntry[];
  align?: 'start' | 'end';
  buttonClassName?: string;
  testId?: string;
  /** The button cannot be pressed (something the menu would start is under way). */
  disabled?: boolean;
}

const ITEM_SELECTOR = '[role="menuitem"], [role="menuitemradio"]';

function isRightToLeft(element: Element): boolean {
  return getComputedStyle(element).direction === 'rtl' || document.documentElement.dir === 'rtl';
}

/**
 * A menu button (WAI-ARIA menu button pattern): arrow keys move between entries, Home and End
 * jump, Enter or Space chooses, Escape closes and returns to the button, Tab leaves. A submenu
 * opens below its entry, so it fits on the narrowest phone and needs no positioning.
 */
export function Menu({
  label,
  buttonContent,
  labelIsVisible = false,
  entries,
  align = 'start',
  buttonClassName = 'btn btn-secondary',
  testId,
  disabled = false,
}: MenuProps) {
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLUListElement>(null);
  const [open, setOpen] = useState(false);
  const [openSubmenu, setOpenSubmenu] = useState<string>();
  const [pendingFocus, setPendingFocus] = useState<
    'first' | 'last' | { submenu: string } | { trigger: string }
  >();

  const items = (): HTMLElement[] => [
    ...(menuRef.current?.querySelectorAll<HTMLElement>(ITEM_SELECTOR) ?? []),
  ];

  useEffect(() => {
    if (!open || pendingFocus === undefined) return;
    const all = items();
    if (pendingFocus === 'first') all[0]?.focus();
    else if (pendingFocus === 'last') all[all.length - 1]?.focus();
    else if ('submenu' in pendingFocus)
      menuRef.current
        ?.querySelector<HTMLElement>(`[data-submenu-of="${pendingFocus.submenu}"] ${ITEM_SELECTOR}`)
        ?.focus();
    else menuRef.current?.querySelector<HTMLElement>(`[data-entry="${pendingFocus.trigger}"]`)?.focus();
    setPendingFocus(undefined);
  }, [open, openSubmenu, pendingFocus]);

  useEffect(() => {
    if (!open) return;
    const closeOnOutsidePointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) close(false);
    };
    document.addEventListener('pointerdown', closeOnOutsidePointer);
    return () => document.removeEventListener('pointerdown', closeOnOutsidePointer);
  }, [open]);

  function openMenu(focus: 'first' | 'last') {
    setOpen(true);
    setOpenSubmenu(undefined);
    setPendingFocus(focus);
  }

  function close(returnFocus: boolean) {
    setOpen(false);
    setOpenSubmenu(undefined);
    if (returnFocus) buttonRef.current?.focus();
  }

  function choose(entry: MenuEntry) {
    if (entry.entries) {
      const opening = openSubmenu !== entry.id;
      setOpenSubmenu(opening ? entry.id : undefined);
      if (opening) setPendingFocus({ submenu: entry.id });
      return;
    }
    close(true);
    entry.onSelect?.();
  }

  function onButtonKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openMenu(event.key === 'ArrowDown' ? 'first' : 'last');
    }
  }

  function onMenuKeyDown(event: KeyboardEvent<HTMLUListElement>) {
    const all = items();
    const current = document.activeElement as HTMLElement | null;
    const index = current ? all.indexOf(current) : -1;
    const submenuOfCurrent = current?.closest<HTMLElement>('[data-submenu-of]')?.dataset.submenuOf;
    const rtl = isRightToLeft(event.currentTarget);
    const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
    const backward = rtl ? 'ArrowRight' : 'ArrowLeft';
    const focusAt = (position: number) => all[(position + all.length) % all.length]?.focus();

    switch (event.key) {
      case 'ArrowDown':
        focusAt(index + 1);
        break;
      case 'ArrowUp':
        focusAt(index - 1);
        break;
      case 'Home':
        focusAt(0);
        break;
      case 'End':
        focusAt(all.length - 1);
        break;
      case forward: {
        const entryId = current?.dataset.entry;
        const entry = entries.find((candidate) => candidate.id === entryId);
        if (entry?.entries && openSubmenu !== entry.id) choose(entry);
        else if (entry?.entries) setPendingFocus({ submenu: entry.id });
        break;
      }
      case backward:
      case 'Escape':
        if (submenuOfCurrent !== undefined) {
          setOpenSubmenu(undefined);
          setPendingFocus({ trigger: submenuOfCurrent });
        } else if (event.key === 'Escape') {
          close(true);
        } else {
          return;
        }
        break;
      case 'Tab':
        close(false);
        return;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  function renderEntry(entry: MenuEntry, role: 'menuitem' | 'menuitemradio') {
    const hasSubmenu = entry.entries !== undefined;
    const expanded = openSubmenu === entry.id;
    return (
      <li role="none" key={entry.id}>
        <button
          type="button"
          role={role}
          tabIndex={-1}
          className={`menu-item${hasSubmenu ? ' menu-item-submenu' : ''}`}
          data-entry={entry.id}
          lang={entry.lang}
          aria-checked={role === 'menuitemradio' ? Boolean(entry.checked) : undefined}
          aria-haspopup={hasSubmenu ? 'menu' : undefined}
          aria-expanded={hasSubmenu ? expanded : undefined}
          onClick={() => choose(entry)}
        >
          {role === 'menuitemradio' && (
            <span className="menu-check" aria-hidden="true">
              {entry.checked ? '✓' : ''}
            </span>
          )}
          <span className="menu-label">{entry.label}</span>
          {hasSubmenu && <span className="menu-caret" aria-hidden="true" />}
        </button>
        {hasSubmenu && expanded && (
          <ul
            role="menu"
            className="submenu"
            data-submenu-of={entry.id}
            aria-label={typeof entry.label === 'string' ? entry.label : undefined}
          >
            {entry.entries?.map((child) =>
              renderEntry(child, child.checked === undefined ? 'menuitem' : 'menuitemradio'),
            )}
          </ul>
        )}
      </li>
    );
  }

  return (
    <div className={`menu menu-align-${align}`} data-testid={testId}>
      <button
        ref={buttonRef}
        type="button"
        className={buttonClassName}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={labelIsVisible ? undefined : label}
        disabled={disabled}
        onClick={() => (open ? close(false) : openMenu('first'))}
        onKeyDown={onButtonKeyDown}
      >
        {buttonContent}
      </button>
      {open && (
        <ul
          ref={menuRef}
          id={menuId}
          role="menu"
          className="menu-list"
          aria-label={label}
          onKeyDown={onMenuKeyDown}
        >
          {entries.map((entry) =>
            renderEntry(entry, entry.checked === undefined ? 'menuitem' : 'menuitemradio'),
          )}
        </ul>
      )}
    </div>
  );
}
