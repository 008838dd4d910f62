import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { SettingsSection } from './settings-section';

const SETTINGS = [
  { name: 'DEA_PORT', value: '8080', isDefault: true, secret: false },
  { name: 'DEA_SECRET', value: '(set)', isDefault: false, secret: true },
  { name: 'DEA_SMTP_PASSWORD', value: '', isDefault: true, secret: true },
  { name: 'DEA_LOGIN_PATH', value: '', isDefault: false, secret: false },
];

describe('the settings in effect', () => {
  it('shows a spinner, then every setting with secrets only as set or not', async () => {
    const answer = heldAnswer();
    fakeConsoleApi({ 'GET admin/settings': () => answer.promise });
    renderConsole(<SettingsSection />);
    expect(screen.getByTestId('spinner')).toBeInTheDocument();
    answer.give(envelope({ settings: SETTINGS }));
    const rows = within(await screen.findByTestId('settings-table')).getAllByRole('row');
    expect(rows.slice(1).map((row) => row.textContent)).toEqual([
      'DEA_PORT8080default',
      'DEA_SECRETset (secret, not shown)changed',
      'DEA_SMTP_PASSWORDnot setdefault',
      'DEA_LOGIN_PATH(empty)changed',
    ]);
  });

  it('finds a setting by part of its name, typed in any case', async () => {
    fakeConsoleApi({ 'GET admin/settings': () => envelope({ settings: SETTINGS }) });
    renderConsole(<SettingsSection />);
    const table = await screen.findByTestId('settings-table');
    await userEvent.type(screen.getByLabelText('Find a setting'), 'secr');
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    await userEvent.type(screen.getByLabelText('Find a setting'), 'nothing');
    expect(within(table).getAllByRole('row')).toHaveLength(1);
  });

  it('names a failure', async () => {
    fakeConsoleApi({ 'GET admin/settings': () => refusal(403, 3, 'You are not allowed to do this.') });
    renderConsole(<SettingsSection />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent(
      'You are not allowed to do this. If you need this, ask an administrator.',
    );
    expect(screen.queryByTestId('settings-table')).not.toBeInTheDocument();
  });
});
