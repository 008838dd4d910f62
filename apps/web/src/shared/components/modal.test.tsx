import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Modal } from './modal';

function Page({ dismissible = true }: { dismissible?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <div id="root">
        <button type="button" onClick={() => setOpen(true)}>
          Open
        </button>
      </div>
      <Modal
        open={open}
        title="Log out"
        closeLabel="Close"
        {...(dismissible && { onClose: () => setOpen(false) })}
        footer={
          <>
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button">Log out</button>
          </>
        }
      >
        Do you want to log out?
      </Modal>
    </>
  );
}

describe('Modal', () => {
  it('takes focus, keeps Tab inside, makes the page inert, and gives focus back when it closes', async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: true }));
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Log out' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.getElementById('root')?.inert).toBe(true);
    for (let index = 0; index < 6; index += 1) {
      await user.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.getElementById('root')?.inert).toBe(false);
    expect(opener).toHaveFocus();
  });

  it('closes with Escape when it may be dismissed, and not when it may not', async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: true }));
    const user = userEvent.setup();
    const { unmount } = render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await screen.findByRole('dialog');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    unmount();

    render(<Page dismissible={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await screen.findByRole('dialog');
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
  });
});
