import type { PolicyOptions } from '@dea/contract';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, renderConsole } from '../testing/render-console';
import { AdministrationScreen } from './administration-screen';

describe('the administration screen', () => {
  it('opens the section the address names and marks it in its navigation', async () => {
    fakeConsoleApi({ 'GET admin/settings': () => envelope({ settings: [] }) });
    renderConsole(<AdministrationScreen section="settings" />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Administration' });
    expect(nav.querySelector('[aria-current="page"]')).toHaveTextContent('Settings');
    expect(screen.getByRole('link', { name: 'Service keys' })).toHaveAttribute(
      'href',
      '#/administration/service-keys',
    );
  });

  it('opens the groups for an address it does not know', async () => {
    const defaults: PolicyOptions = {
      enableECode: false,
      emergencyCodeDelivery: 'Display',
      codeLength: 10,
      codeAlphabet: 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789',
      codeValidityMinutes: 15,
      codeUses: 1,
      maxUnusedCodes: 3,
    };
    fakeConsoleApi({ 'GET admin/groups': () => envelope({ groups: [], defaults }) });
    renderConsole(<AdministrationScreen section="nothing-here" />);
    expect(await screen.findByText('No groups yet.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Groups and policies' })).toHaveAttribute('aria-current', 'page');
  });
});
