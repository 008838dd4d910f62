import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
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

describe('the texts screen, loading and languages', () => {
  const LANGUAGES = [
    { code: 'en', name: 'English', texts: 3, missing: 0 },
    { code: 'de', name: 'Deutsch', texts: 3, missing: 0 },
  ];
  const textsOf = (language: string) =>
    envelope({ language, texts: [{ key: 'logout', english: 'Log out', text: `${language}: Log out` }] });

  it('shows a spinner until the texts are there, then loads another language when chosen', async () => {
    const first = heldAnswer();
    fakeConsoleApi({
      'GET admin/languages': () => envelope({ languages: LANGUAGES }),
      'GET admin/texts/de': () => first.promise,
      'GET admin/texts/en': () => textsOf('en'),
    });
    renderConsole(<TextsSection />);
    expect(await screen.findByLabelText('Language of the texts')).toHaveValue('de');
    await vi.waitFor(() => expect(screen.getByTestId('spinner')).toHaveTextContent('Loading…'));
    first.give(textsOf('de'));
    expect(await screen.findByLabelText('Text of logout')).toHaveValue('de: Log out');
    await userEvent.selectOptions(screen.getByLabelText('Language of the texts'), 'en');
    await vi.waitFor(() => expect(screen.getByLabelText('Text of logout')).toHaveValue('en: Log out'));
    expect(screen.getByTestId('texts-missing')).toHaveTextContent('Missing texts in this language: 0');
  });

  it('adds a language and opens it', async () => {
    let languages = LANGUAGES;
    const calls = fakeConsoleApi({
      'GET admin/languages': () => envelope({ languages }),
      'GET admin/texts/de': () => textsOf('de'),
      'GET admin/texts/sv': () => textsOf('sv'),
      'POST admin/languages': () => {
        languages = [...LANGUAGES, { code: 'sv', name: 'Svenska', texts: 3, missing: 0 }];
        return envelope({ texts: 3 });
      },
    });
    renderConsole(<TextsSection />);
    await screen.findByLabelText('Text of logout');
    await userEvent.click(screen.getByText('Add a language'));
    await userEvent.type(screen.getByLabelText('Language code (de, pt_BR, zh-Hans)'), 'sv');
    await userEvent.type(screen.getByLabelText('Name in the language itself (Svenska)'), 'Svenska{Enter}');
    expect(await screen.findByTestId('texts-done')).toHaveTextContent(
      'Svenska was added with the English texts',
    );
    await vi.waitFor(() => expect(screen.getByLabelText('Text of logout')).toHaveValue('sv: Log out'));
    expect(screen.getByLabelText('Language of the texts')).toHaveValue('sv');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ code: 'sv', name: 'Svenska' });
  });

  it('names a failure to load the languages', async () => {
    fakeConsoleApi({ 'GET admin/languages': () => refusal(503, 5, '') });
    renderConsole(<TextsSection />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('The server is busy');
    expect(screen.queryByLabelText('Language of the texts')).not.toBeInTheDocument();
  });
});
