import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Menu, type MenuEntry } from './menu';

function renderMenu(entries: readonly MenuEntry[]) {
  const user = userEvent.setup();
  render(<Menu label="User menu" buttonContent="Dana" entries={entries} />);
  return { user, button: screen.getByRole('button', { name: 'User menu' }) };
}

describe('Menu (WAI-ARIA menu button)', () => {
  const chosen: string[] = [];
  const entries: MenuEntry[] = [
    { id: 'one', label: 'One', onSelect: () => chosen.push('one') },
    { id: 'two', label: 'Two', onSelect: () => chosen.push('two') },
    { id: 'three', label: 'Three', onSelect: () => chosen.push('three') },
  ];

  it('opens with the keyboard on the first entry, moves with arrows, Home and End, and chooses with Enter', async () => {
    const { user, button } = renderMenu(entries);
    expect(button).toHaveAttribute('aria-expanded', 'false');
    button.focus();
    await user.keyboard('{Enter}');
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'Two' })).toHaveFocus();
    await user.keyboard('{End}');
    expect(screen.getByRole('menuitem', { name: 'Three' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
    await user.keyboard('{Home}{ArrowDown}{Enter}');
    expect(chosen.at(-1)).toBe('two');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(button).toHaveFocus();
  });

  it('closes with Escape and gives focus back to its button, choosing nothing', async () => {
    const onSelect = vi.fn();
    const { user, button } = renderMenu([{ id: 'x', label: 'X', onSelect }]);
    await user.click(button);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(button).toHaveFocus();
    expect(onSelect).not.toHaveBeenCalled();
  });

  it('marks the checked entry of a submenu and opens the submenu from its entry', async () => {
    const onGerman = vi.fn();
    const { user, button } = renderMenu([
      {
        id: 'language',
        label: 'Language',
        entries: [
          { id: 'en', label: 'English', checked: true, lang: 'en' },
          { id: 'de', label: 'Deutsch', checked: false, lang: 'de', onSelect: onGerman },
        ],
      },
    ]);
    await user.click(button);
    await user.click(screen.getByRole('menuitem', { name: 'Language' }));
    expect(screen.getByRole('menuitemradio', { name: 'English' })).toHaveAttribute('aria-checked', 'true');
    await user.click(screen.getByRole('menuitemradio', { name: 'Deutsch' }));
    expect(onGerman).toHaveBeenCalledOnce();
  });
});
