import { render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { text } from '../testing/test-messages';
import { LIST, OPEN } from './channels-app-fixture';
import { ChannelsApp } from './channels-app';

vi.mock('@simplewebauthn/browser', () => import('../console/testing/browser-passkeys'));

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer()
    .answer('POST registration/open', ok({ expiresAt: OPEN.expiresAt }))
    .answer('POST registration/ways', ok(OPEN))
    .answer('POST channels/list', ok(LIST))
    .answer('POST passkeys/list', ok({ passkeys: [] }));
});

/** The channels page as start-channels.tsx starts it: in React's StrictMode, effects run twice. */
function renderStrict(hash: string) {
  window.history.replaceState(null, '', `/dea/channels/${hash}`);
  return render(
    <StrictMode>
      <ChannelsApp />
    </StrictMode>,
  );
}

describe('the channels page in StrictMode', () => {
  it('uses a registration link once, then asks for the ways', async () => {
    renderStrict('#link=abcdefghijklmnopqrstuvwxyz');
    expect(
      await screen.findByRole('heading', { level: 1, name: text('en', 'channels.title') }),
    ).toBeVisible();
    expect(server.callsTo('POST registration/open').map((call) => call.body)).toEqual([
      { link: 'abcdefghijklmnopqrstuvwxyz' },
    ]);
    expect(server.routesCalled().filter((route) => route.startsWith('POST registration/'))).toEqual([
      'POST registration/open',
      'POST registration/ways',
    ]);
    expect(window.location.hash).toBe('');
  });
});
