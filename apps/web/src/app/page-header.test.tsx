import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeServer, TEST_USER, type FakeServer } from '../testing/fake-server';
import { navigations, pageReady, renderPage } from '../testing/render-page';
import { text } from '../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

async function openLogoutConfirmation(user: ReturnType<typeof renderPage>['user']) {
  await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
  await user.click(screen.getByRole('menuitem', { name: text('en', 'user.logout') }));
  return screen.findByRole('dialog', { name: text('en', 'logout') });
}

describe('user menu and logout (spec section 2)', () => {
  it('lists the language submenu and Logout', async () => {
    const { user } = renderPage();
    await pageReady();
    await user.click(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
    const menu = screen.getByRole('menu', { name: text('en', 'header.userMenu') });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual([text('en', 'header.settings.language'), text('en', 'user.logout')]);
  });

  it('asks for confirmation; Cancel closes and stays', async () => {
    const { user } = renderPage();
    await pageReady();
    const dialog = await openLogoutConfirmation(user);
    expect(dialog).toHaveTextContent(text('en', 'confirmMessage.logout'));
    await user.click(within(dialog).getByRole('button', { name: text('en', 'cancel') }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(navigations()).toEqual([]);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: text('en', 'header.userMenu') }));
  });

  it('Logout goes to origin + path + /logout and forgets the code', async () => {
    const { user } = renderPage();
    await screen.findByTestId('emergency-code');
    const dialog = await openLogoutConfirmation(user);
    await user.click(within(dialog).getByRole('button', { name: text('en', 'logout') }));
    expect(navigations()).toEqual(['http://host.test/dea/logout']);
    expect(window.sessionStorage.getItem('emergencyCode')).toBeNull();
    expect(window.sessionStorage.getItem('emergencyCodeId')).toBeNull();
  });

  it('Escape closes the confirmation like Cancel', async () => {
    const { user } = renderPage();
    await pageReady();
    await openLogoutConfirmation(user);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(navigations()).toEqual([]);
  });

  it('shows no last login on a first sign-in', async () => {
    server.answer('POST userinfo', { body: { ...TEST_USER, lastLogin: null } });
    renderPage();
    await pageReady();
    expect(screen.getByTestId('user-summary')).toHaveTextContent('Dana Demo');
    expect(screen.queryByTestId('last-login')).toBeNull();
  });
});

describe('keyboard', () => {
  it('opens the menu, walks it with arrows and picks a language from the submenu', async () => {
    const { user } = renderPage();
    await pageReady();
    screen.getByRole('button', { name: text('en', 'header.userMenu') }).focus();
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toHaveTextContent(text('en', 'header.settings.language'));
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toHaveTextContent(text('en', 'user.logout'));
    await user.keyboard('{ArrowUp}{ArrowRight}');
    expect(document.activeElement?.textContent).toContain('English');
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent(text('de', 'app.title')));
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('Escape closes a submenu, then the menu, and returns focus to the button', async () => {
    const { user } = renderPage();
    await pageReady();
    const button = screen.getByRole('button', { name: text('en', 'header.userMenu') });
    button.focus();
    await user.keyboard('{Enter}');
    await user.keyboard('{Enter}');
    expect(screen.getByRole('menu', { name: text('en', 'header.settings.language') })).toBeVisible();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu', { name: text('en', 'header.settings.language') })).toBeNull();
    expect(document.activeElement).toHaveTextContent(text('en', 'header.settings.language'));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
  });

  // The focus trap and the inert page of the native dialog are shown in Chromium (logout.spec.ts).
  it('opens the logout confirmation as a modal dialog with focus on Cancel', async () => {
    const { user } = renderPage();
    await pageReady();
    const dialog = await openLogoutConfirmation(user);
    const cancel = within(dialog).getByRole('button', { name: text('en', 'cancel') });
    const logout = within(dialog).getByRole('button', { name: text('en', 'logout') });
    expect(document.activeElement).toBe(cancel);
    await user.tab();
    expect(document.activeElement).toBe(logout);
    expect(dialog).toHaveAttribute('open');
  });
});
