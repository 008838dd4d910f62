import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, renderConsole } from '../testing/render-console';
import { TextsSection } from './texts-section';

describe('the texts screen', () => {
  it('highlights the texts a language lacks and sends only what changed', async () => {
    const calls = fakeConsoleApi({
      'GET admin/languages': () =>
        envelope({
          languages: [
            { code: 'en', name: 'English', texts: 3, missing: 0 },
            { code: 'xq', name: 'Gaps', texts: 2, missing: 1 },
          ],
        }),
      'GET admin/texts/xq': () =>
        envelope({
          language: 'xq',
          texts: [
            { key: 'logout', english: 'Log out', text: 'Ausloggen' },
            { key: 'content.title', english: 'Emergency access', text: null },
          ],
        }),
      'POST admin/texts/xq': () => envelope({ added: 1, replaced: 0 }),
    });
    renderConsole(<TextsSection />);

    expect(await screen.findByText('Missing texts in this language: 1')).toBeInTheDocument();
    const table = await screen.findByTestId('texts-table');
    const missingRow = within(table).getByText('content.title').closest('tr');
    expect(missingRow).toHaveClass('missing-text');
    expect(within(missingRow as HTMLElement).getByText('missing')).toBeInTheDocument();
    expect(within(table).getByText('logout').closest('tr')).not.toHaveClass('missing-text');

    await userEvent.click(screen.getByLabelText('Show only missing texts'));
    expect(within(table).queryByText('logout')).not.toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('Text of content.title'), 'Notzugang');
    await userEvent.click(screen.getByRole('button', { name: 'Save changed texts (1)' }));
    expect(await screen.findByText('Texts saved: 1')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST')).toEqual([
      { method: 'POST', path: 'admin/texts/xq', body: { texts: { 'content.title': 'Notzugang' } } },
    ]);
  });
});
