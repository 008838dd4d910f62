import type { ChannelListResult, RegistrationWaysResult } from '@dea/contract';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ChannelsApp } from './channels-app';

/** Renders the channels page as the browser starts it, at /dea/channels/ with a fragment. */
export function renderChannels(hash = '') {
  window.history.replaceState(null, '', `/dea/channels/${hash}`);
  const container = document.createElement('div');
  container.id = 'root';
  document.body.append(container);
  const user = userEvent.setup();
  return { ...render(<ChannelsApp />, { container }), user };
}

export const CLOSED: RegistrationWaysResult = {
  open: false,
  oidc: false,
  channels: [
    { reference: 'ref-mail', key: 'email', type: 'smtp', to: 'd***@e***.com' },
    { reference: 'ref-phone', key: 'mobile', type: 'sms', to: '+49 *** ***12' },
  ],
};
export const OPEN: RegistrationWaysResult = {
  open: true,
  expiresAt: '2026-11-26T21:15:00.000Z',
  oidc: false,
  channels: [],
};

export const LIST: ChannelListResult = {
  channels: [
    {
      state: 'registered',
      key: 'email',
      type: 'smtp',
      to: 'd***@e***.com',
      reference: 'r1',
      origin: 'source',
      source: 'ldap',
      usable: true,
    },
    {
      state: 'registered',
      key: 'personalMobile',
      type: 'sms',
      to: '+49 *** ***99',
      reference: 'r2',
      origin: 'owner',
      usable: false,
      reason: 'cooling',
      until: '2026-11-27T20:00:00.000Z',
    },
  ],
  policy: { types: ['sms', 'smtp'], max: 2, coolingHours: 24 },
};
