import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { I18nProvider } from '../../shared/i18n/i18n-context';
import { createTranslator } from '../../shared/i18n/translator';
import { testMessages } from '../../testing/test-messages';

/** A passkey component as the page shows it: inside the page's I18nProvider, in that language. */
export function renderInPage(ui: ReactNode, language = 'en') {
  return render(
    <I18nProvider value={{ language, t: createTranslator(testMessages(language)) }}>{ui}</I18nProvider>,
  );
}
