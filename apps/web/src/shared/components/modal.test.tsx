import { act, fireEvent, render, screen } from '@testing-library/react';
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
  // happy-dom draws no top layer: the focus trap and the inert page behind the native dialog are
  // shown in Chromium (e2e/specs/logout.spec.ts).
  it("opens as a modal dialog, lands on the footer's first action and gives focus back when it closes", async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: true }));
    const user = userEvent.setup();
    render(<Page />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Log out' });
    expect(dialog.tagName).toBe('DIALOG');
    expect(dialog).toHaveAttribute('open');
    expect(dialog).toHaveAccessibleDescription('Do you want to log out?');
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(opener).toHaveFocus();
  });

  it('closes with Escape, the close button or the backdrop when it may be dismissed', async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: true }));
    const user = userEvent.setup();
    render(<Page />);
    const open = async () => {
      await user.click(screen.getByRole('button', { name: 'Open' }));
      return screen.findByRole('dialog');
    };
    await open();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    await open();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    const dialog = await open();
    await user.click(screen.getByText('Do you want to log out?'));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.click(dialog);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('stays open, without a close button, when it may not be dismissed', async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: true }));
    const user = userEvent.setup();
    render(<Page dismissible={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const dialog = await screen.findByRole('dialog');
    await user.keyboard('{Escape}');
    await user.click(dialog);
    expect(screen.getByRole('dialog')).toHaveAttribute('open');
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    const cancel = new Event('cancel', { cancelable: true });
    dialog.dispatchEvent(cancel);
    expect(cancel.defaultPrevented).toBe(true);
  });

  it('keeps a closing dialog drawn for the 0.2 s fade-out unless the user asks for reduced motion', async () => {
    vi.stubGlobal('matchMedia', () => ({ matches: false }));
    vi.useFakeTimers();
    try {
      render(<Page />);
      fireEvent.click(screen.getByRole('button', { name: 'Open' }));
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      const closing = screen.getByRole('dialog', { hidden: true });
      expect(closing).not.toHaveAttribute('open');
      await act(() => vi.advanceTimersByTimeAsync(199));
      expect(screen.queryByRole('dialog', { hidden: true })).not.toBeNull();
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(screen.queryByRole('dialog', { hidden: true })).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
