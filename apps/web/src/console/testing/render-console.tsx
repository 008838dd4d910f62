import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { createConsoleTranslator, ENGLISH_CONSOLE_TEXTS, CONSOLE_LANGUAGES } from '../i18n/console-texts';
import { ConsoleI18nProvider, type ConsoleI18n } from '../i18n/console-i18n';

export interface ConsoleCall {
  method: string;
  path: string;
  body: unknown;
}
type Answer = { status?: number; body: unknown };

/**
 * A fake of /dea/admin-api/ at the network boundary (global fetch): each call is answered by the
 * first handler whose "METHOD path" matches, and recorded.
 */
export function fakeConsoleApi(handlers: Record<string, (call: ConsoleCall) => Answer>): ConsoleCall[] {
  const calls: ConsoleCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const path = new URL(url, window.location.origin).pathname.replace('/dea/admin-api/', '');
      const call = {
        method: init.method ?? 'GET',
        path,
        body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      };
      calls.push(call);
      const handler = handlers[`${call.method} ${path}`];
      const answer = handler
        ? handler(call)
        : { status: 404, body: { error: 2, message: 'not found', result: null } };
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 });
    }),
  );
  return calls;
}

export const envelope = (result: unknown): Answer => ({ body: { error: 0, message: '', result } });

/** Renders a console screen in English. */
export function renderConsole(ui: ReactNode) {
  const i18n: ConsoleI18n = {
    language: 'en',
    languages: CONSOLE_LANGUAGES,
    t: createConsoleTranslator(ENGLISH_CONSOLE_TEXTS),
    formatTime: (iso) => iso,
    switchLanguage: () => undefined,
  };
  return render(<ConsoleI18nProvider value={i18n}>{ui}</ConsoleI18nProvider>);
}
