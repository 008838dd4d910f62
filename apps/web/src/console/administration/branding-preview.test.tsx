import { API_BASE_PATH, BUILT_IN_LANGUAGES } from '@dea/contract';
import { render, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../../testing/catalogs';
import { createConsoleTranslator } from '../i18n/console-texts';
import { ConsoleI18nProvider } from '../i18n/console-i18n';
import { fakeConsoleApi, heldAnswer } from '../testing/render-console';
import { BrandingPreview } from './branding-preview';

const MESSAGES = `GET ${API_BASE_PATH}message`;

/** The preview inside a console speaking `language`. */
function inConsole(language: string): ReactNode {
  return (
    <ConsoleI18nProvider
      value={{
        language,
        languages: BUILT_IN_LANGUAGES,
        t: createConsoleTranslator(shippedCatalog('en')),
        formatTime: (iso) => iso,
        switchLanguage: () => undefined,
      }}
    >
      <BrandingPreview branding={{}} />
    </ConsoleI18nProvider>
  );
}

/** The preview's heading, drawn in its shadow root. */
const previewTitle = () =>
  screen.getByTestId('branding-preview').shadowRoot?.querySelector('.card-title')?.textContent;

describe('the branding preview', () => {
  it("shows the page's texts in the console's language once they are loaded", async () => {
    const answer = heldAnswer();
    const calls = fakeConsoleApi({ [MESSAGES]: () => answer.promise });
    render(inConsole('de'));
    await waitFor(() => expect(previewTitle()).toBe('content.title'));
    answer.give({ body: shippedCatalog('de') });
    await waitFor(() => expect(previewTitle()).toBe('Notfallzugang'));
    expect(calls.map((call) => [call.path, call.query])).toEqual([
      [`${API_BASE_PATH}message`, { lang: 'de' }],
    ]);
  });

  it('keeps the texts it shows while those of another language load', async () => {
    const german = heldAnswer();
    fakeConsoleApi({
      [MESSAGES]: (call) => (call.query?.lang === 'de' ? german.promise : { body: shippedCatalog('en') }),
    });
    const { rerender } = render(inConsole('en'));
    await waitFor(() => expect(previewTitle()).toBe('Emergency access'));
    rerender(inConsole('de'));
    expect(previewTitle()).toBe('Emergency access');
    german.give({ body: shippedCatalog('de') });
    await waitFor(() => expect(previewTitle()).toBe('Notfallzugang'));
  });
});
