import type { BrandingEntry } from '@dea/contract';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeServer, type FakeServer } from '../../../testing/fake-server';
import { pageReady, renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

const entry = (
  name: string,
  type: BrandingEntry['type'],
  value: string,
  isDefault = false,
): BrandingEntry => ({
  name,
  type,
  value,
  isDefault,
});

describe('branding (spec section 3)', () => {
  it('uses the built-in defaults', async () => {
    renderPage();
    await pageReady();
    const year = new Date().getFullYear();
    expect(screen.getByTestId('header-middle')).toHaveTextContent(text('en', 'app.title'));
    expect(screen.getByTestId('footer-left')).toHaveTextContent(text('en', 'app.title'));
    expect(screen.getByTestId('footer-middle')).toHaveTextContent(text('en', 'app.copyright', { year }));
    expect(screen.getByTestId('footer-right')).toHaveTextContent(
      text('en', 'app.version', { version: '8.0.20' }),
    );
    expect(screen.getByRole('img', { name: text('en', 'header.logo') }).getAttribute('src')).toMatch(
      /logo|^data:image\/svg/,
    );
    expect(document.title).toBe(text('en', 'app.title'));
    expect(screen.queryByTestId('branding-css')).toBeNull();
  });

  it("applies the administrator's entries: CSS block, title, header and footer HTML, logo", async () => {
    server.branding([
      entry('CSS', 'css', '.page-header { background: rgb(1, 2, 3); }'),
      entry('htmlTitle', 'text', 'Acme Emergency'),
      entry('headerMiddle', 'html', '<strong>Acme</strong> access'),
      entry(
        'footerLeft',
        'html',
        '<a href="https://acme.test/help">Help</a><script>window.hacked = true</script>',
      ),
      entry('footerMiddle', 'html', '<img src="x" onerror="window.hacked = true" alt="pixel">'),
      entry('footerRight', 'html', '<a href="javascript:window.hacked = true">Version A</a>'),
      entry('headerLeft', 'image', 'https://acme.test/logo.png'),
    ]);
    renderPage();
    await pageReady();
    expect(screen.getByTestId('branding-css').textContent).toBe('.page-header { background: rgb(1, 2, 3); }');
    expect(document.title).toBe('Acme Emergency');
    expect(within(screen.getByTestId('header-middle')).getByText('Acme').tagName).toBe('STRONG');
    expect(
      within(screen.getByTestId('footer-left')).getByRole('link', { name: 'Help' }).getAttribute('href'),
    ).toBe('https://acme.test/help');
    expect(screen.getByTestId('footer-left').querySelector('script')).toBeNull();
    expect(screen.getByTestId('footer-middle').querySelector('img')?.hasAttribute('onerror')).toBe(false);
    expect(screen.getByTestId('footer-right').querySelector('a')?.hasAttribute('href')).toBe(false);
    expect(screen.getByTestId('brand-logo').getAttribute('src')).toBe('https://acme.test/logo.png');
    expect((window as unknown as { hacked?: boolean }).hacked).toBeUndefined();
  });

  it('uses the default for entries marked isDefault, whatever their value', async () => {
    server.branding([
      entry('htmlTitle', 'text', 'Not this', true),
      entry('footerLeft', 'html', 'Not this either', true),
      entry('CSS', 'css', 'body { color: red }', true),
    ]);
    renderPage();
    await pageReady();
    expect(document.title).toBe(text('en', 'app.title'));
    expect(screen.getByTestId('footer-left')).toHaveTextContent(text('en', 'app.title'));
    expect(screen.queryByTestId('branding-css')).toBeNull();
  });

  it('shows the full name and last login unless a custom right-hand header is set', async () => {
    renderPage();
    await pageReady();
    const summary = screen.getByTestId('user-summary');
    expect(summary).toHaveTextContent('Dana Demo');
    expect(summary).toHaveTextContent(text('en', 'user.lastLogin'));
    expect(screen.getByTestId('last-login').getAttribute('datetime')).toBe('2026-11-20T14:05:00.000Z');
    expect(screen.getByTestId('last-login').textContent).toMatch(/^\d\d\. Nov\. 2026 \d\d:\d\d$/);
  });

  it('replaces name and last login with the custom right-hand header, keeping the menu', async () => {
    server.branding([entry('headerRight', 'html', '<em>Acme Corp</em>')]);
    renderPage();
    await pageReady();
    expect(screen.getByTestId('header-right-custom')).toHaveTextContent('Acme Corp');
    expect(screen.queryByTestId('user-summary')).toBeNull();
    expect(screen.getByRole('button', { name: text('en', 'header.userMenu') })).toBeVisible();
  });

  it('applies a background image given as a plain URL only', async () => {
    server.branding([entry('backgroundImage', 'image', 'https://acme.test/bg.jpg')]);
    const { container } = renderPage();
    await pageReady();
    expect((container.querySelector('.page') as HTMLElement).style.backgroundImage).toContain(
      'https://acme.test/bg.jpg',
    );
  });
});
