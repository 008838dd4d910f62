import { browserLocation } from '../../../shared/browser-location';
import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  httpStatus,
  installFakeServer,
  ok,
  DISPLAY_POLICY,
  type FakeServer,
} from '../../../testing/fake-server';
import { renderPage } from '../../../testing/render-page';
import { text } from '../../../testing/test-messages';
import { CHANNELS } from './emergency-code-card-fixture';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

describe('codes on screen without a reason to trust', () => {
  const untrusted = () =>
    server.answer(
      'POST user/getPolicy',
      ok({ options: { ...DISPLAY_POLICY, emergencyCodeDelivery: 'Channel' }, screenCodeTrust: 'missing' }),
    );

  it('offers the channels, saying why no code is on screen, and asks for none', async () => {
    untrusted().answer('POST user/queryAvailableChannels', ok(CHANNELS));
    renderPage();
    expect(await screen.findByTestId('screen-code-untrusted')).toHaveTextContent(
      text('en', 'content.screenCodeUntrusted'),
    );
    expect(screen.getByTestId('channel-sms')).toBeVisible();
    expect(screen.queryByTestId('emergency-code')).toBeNull();
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('says to call the help desk when no channel may receive a code', async () => {
    untrusted().answer('POST user/queryAvailableChannels', ok({}));
    renderPage();
    expect(await screen.findByTestId('call-help-desk')).toHaveTextContent(text('en', 'content.callHelpDesk'));
    expect(screen.queryByTestId('no-channel')).toBeNull();
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
  });

  it('keeps the spec’s texts when codes go by channel anyway', async () => {
    server.channels({});
    renderPage();
    expect(await screen.findByTestId('no-channel')).toBeVisible();
    expect(screen.queryByTestId('call-help-desk')).toBeNull();
    expect(screen.queryByTestId('screen-code-untrusted')).toBeNull();
  });
});

describe('policy', () => {
  it('shows the not-authorized alert and asks for no code when codes are disabled', async () => {
    server.policy({ enableECode: false });
    renderPage();
    expect(await screen.findByTestId('not-authorized')).toHaveTextContent(
      text('en', 'content.notAuthorized'),
    );
    // Not the spec's title section (codes are not enabled), but a heading of its own.
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      text('en', 'content.notAuthorizedTitle'),
    );
    expect(server.callsTo('POST tempPass/create')).toHaveLength(0);
    expect(server.callsTo('POST user/queryAvailableChannels')).toHaveLength(0);
  });

  it('gives the failure screen a heading and the message when the policy cannot be loaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.answer('POST user/getPolicy', httpStatus(500));
    const { user } = renderPage();
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'content.unavailableTitle') }),
    ).toBeVisible();
    expect(await screen.findByTestId('page-error')).toHaveTextContent(text('en', 'error.generic'));
    // Not a dead end: trying again loads the page anew; the menu beside it logs out.
    await user.click(screen.getByRole('button', { name: text('en', 'content.tryAgain') }));
    expect(vi.mocked(browserLocation.reload)).toHaveBeenCalledTimes(1);
  });

  it('does not show a kept code when codes are disabled', async () => {
    window.sessionStorage.setItem('emergencyCode', 'KEPTCODE99');
    server.policy({ enableECode: false });
    renderPage();
    await screen.findByTestId('not-authorized');
    expect(screen.queryByText('KEPTCODE99')).toBeNull();
  });
});
