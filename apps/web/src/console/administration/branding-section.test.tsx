import { BRANDING_NAMES, BRANDING_TYPE_OF, type BrandingEntry } from '@dea/contract';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { BrandingSection } from './branding-section';

const entries = (custom: Partial<Record<string, string>>): BrandingEntry[] =>
  BRANDING_NAMES.map((name) => ({
    name,
    type: BRANDING_TYPE_OF[name],
    value: custom[name] ?? '',
    isDefault: custom[name] === undefined,
  }));

describe('the branding', () => {
  it('shows a spinner, then each entry, default or set', async () => {
    const answer = heldAnswer();
    fakeConsoleApi({ 'GET admin/branding': () => answer.promise });
    renderConsole(<BrandingSection />);
    expect(screen.getByTestId('spinner')).toBeInTheDocument();
    answer.give(envelope({ entries: entries({ htmlTitle: 'ACME access' }) }));
    expect(await screen.findByLabelText('htmlTitle · text')).toHaveValue('ACME access');
    expect(screen.getByLabelText('htmlTitle · text')).toHaveAccessibleDescription('Set by an administrator.');
    expect(screen.getByLabelText('footerLeft · HTML (cleaned)')).toHaveAccessibleDescription(
      "The product's default is in use.",
    );
    expect(screen.getByRole('button', { name: 'Save htmlTitle' })).toBeDisabled();
  });

  it('saves a changed entry and resets a set one, each said', async () => {
    let custom: Record<string, string> = { htmlTitle: 'ACME access' };
    const calls = fakeConsoleApi({
      'GET admin/branding': () => envelope({ entries: entries(custom) }),
      'POST admin/branding': (call) => {
        const { name, value } = call.body as { name: string; value: string };
        custom = { ...custom, [name]: value };
        return envelope(entries(custom).find((entry) => entry.name === name));
      },
      'POST admin/branding/reset': (call) => {
        const { name } = call.body as { name: string };
        custom = {};
        return envelope(entries(custom).find((entry) => entry.name === name));
      },
    });
    renderConsole(<BrandingSection />);
    await userEvent.type(await screen.findByLabelText('footerLeft · HTML (cleaned)'), '<b>Help: 4711</b>');
    await userEvent.click(screen.getByRole('button', { name: 'Save footerLeft' }));
    expect(await screen.findByTestId('branding-done')).toHaveTextContent('footerLeft was saved.');
    expect(await screen.findByRole('button', { name: 'Reset footerLeft' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Reset htmlTitle' }));
    expect(await screen.findByText('htmlTitle is back to the default.')).toBeInTheDocument();
    expect(calls.filter((call) => call.method === 'POST').map((call) => [call.path, call.body])).toEqual([
      ['admin/branding', { name: 'footerLeft', value: '<b>Help: 4711</b>' }],
      ['admin/branding/reset', { name: 'htmlTitle' }],
    ]);
  });

  it('names a refused entry and a failure to load', async () => {
    fakeConsoleApi({
      'GET admin/branding': () => envelope({ entries: entries({}) }),
      'POST admin/branding': () => refusal(400, 4, 'CSS: url() is not allowed.'),
    });
    const { unmount } = renderConsole(<BrandingSection />);
    await userEvent.type(await screen.findByLabelText('CSS · CSS'), 'body {{ background: url(x) }');
    await userEvent.click(screen.getByRole('button', { name: 'Save CSS' }));
    expect(await screen.findByTestId('console-error')).toHaveTextContent('CSS: url() is not allowed.');
    unmount();

    fakeConsoleApi({ 'GET admin/branding': () => refusal(500, 1, '') });
    renderConsole(<BrandingSection />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('Something went wrong.');
  });
});
