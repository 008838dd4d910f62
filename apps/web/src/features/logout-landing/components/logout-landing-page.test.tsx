import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { installFakeServer, type FakeServer } from '../../../testing/fake-server';
import { navigations, renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

const landing = (ep: string) => `#/logoutLanding?ep=${encodeURIComponent(ep)}`;

async function clickBackToLogin(user: ReturnType<typeof renderPage>['user']) {
  const dialog = await screen.findByRole('dialog', { name: text('en', 'logoutLanding.title') });
  await user.click(within(dialog).getByRole('button', { name: text('en', 'logoutLanding.backToLogin') }));
  return dialog;
}

describe('logout landing (spec section 2)', () => {
  it('shows a modal that cannot be dismissed, and asks nothing about a user', async () => {
    const { user } = renderPage(landing('http://host.test/login/'));
    const dialog = await screen.findByRole('dialog', { name: text('en', 'logoutLanding.title') });
    expect(dialog).toHaveTextContent(text('en', 'logoutLanding.content'));
    expect(within(dialog).queryByRole('button', { name: text('en', 'close') })).toBeNull();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeVisible();
    expect(server.callsTo('POST userinfo')).toHaveLength(0);
    expect(server.callsTo('POST user/get')).toHaveLength(0);
  });

  it('goes back to a login URL on this host', async () => {
    const { user } = renderPage(landing('http://host.test/login/?username=dana'));
    await clickBackToLogin(user);
    expect(navigations()).toEqual(['http://host.test/login/?username=dana']);
  });

  it.each([
    '//evil.test',
    '/\\evil.test',
    'https:evil.test',
    'javascript:alert(1)',
    'data:text/html,hi',
    'https://a@evil.test',
    'https://host.test.evil.test/login/',
    'HTTPS://EVIL.TEST/',
    'http%3A%2F%2Fevil.test',
    'not a url',
  ])('does nothing for %j', async (ep) => {
    const { user } = renderPage(landing(ep));
    await clickBackToLogin(user);
    expect(navigations()).toEqual([]);
  });

  it('does nothing without ep', async () => {
    const { user } = renderPage('#/logoutLanding');
    await clickBackToLogin(user);
    expect(navigations()).toEqual([]);
  });

  it('forgets the code of the ended session', async () => {
    window.sessionStorage.setItem('emergencyCode', 'OLDCODE');
    window.sessionStorage.setItem('emergencyCodeId', 'old');
    renderPage(landing('http://host.test/login/'));
    await screen.findByRole('dialog');
    expect(window.sessionStorage.getItem('emergencyCode')).toBeNull();
    expect(window.sessionStorage.getItem('emergencyCodeId')).toBeNull();
  });

  it('speaks the stored language', async () => {
    window.localStorage.setItem('lang', 'de');
    renderPage(landing('http://host.test/login/'));
    expect(await screen.findByRole('dialog', { name: text('de', 'logoutLanding.title') })).toBeVisible();
  });
});
