import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { API_BASE_PATH, BUILT_IN_LANGUAGES, CONSOLE_API_BASE_PATH } from '@dea/contract';
import { createConsoleTranslator } from '../i18n/console-texts';
import { ConsoleI18nProvider, type ConsoleI18n } from '../i18n/console-i18n';
import { SignedOutContext } from '../session/signed-out-context';
import { shippedCatalog, SHIPPED_CATALOGS } from '../../testing/catalogs';
import {
  CONSOLE_ANSWERS,
  contractDrift,
  contractProblems,
  PAGE_ANSWERS,
} from '../../testing/contract-answers';

export interface ConsoleCall {
  method: string;
  path: string;
  query?: Record<string, string>;
  body: unknown;
}
/** Checked against the contract's schema of its route, unless `offContract` says why not. */
export type Answer = { status?: number; body: unknown; offContract?: string };

/** The public calls the console's texts come from, answered as the server does with the shipped catalogs. */
const TEXT_CALLS: Record<string, (call: ConsoleCall) => Answer> = {
  [`GET ${API_BASE_PATH}resourceFile/getLanguageList`]: () => envelope(BUILT_IN_LANGUAGES),
  [`GET ${API_BASE_PATH}message`]: (call) => {
    const lang = call.query?.lang ?? 'en';
    return { body: { ...shippedCatalog('en'), ...(SHIPPED_CATALOGS[lang] ?? {}) } };
  },
};

/**
 * A fake of /dea/admin-api/ at the network boundary (global fetch): each call is answered by the
 * first handler whose "METHOD path" matches, and recorded with its query. A handler may answer
 * later (a promise, see `heldAnswer`); a call whose signal aborts ends as a real fetch does. The
 * console's languages and texts (the page's public calls under /dea/api/, named by their whole
 * path) are answered from the shipped catalogs unless a handler is given, and then not recorded.
 */
export function fakeConsoleApi(
  handlers: Record<string, (call: ConsoleCall) => Answer | Promise<Answer>>,
): ConsoleCall[] {
  const calls: ConsoleCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const address = new URL(url, window.location.origin);
      const path = address.pathname.replace(CONSOLE_API_BASE_PATH, '');
      const call = {
        method: init.method ?? 'GET',
        path,
        ...(address.search !== '' && { query: Object.fromEntries(address.searchParams) }),
        body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      };
      const ownHandler = handlers[`${call.method} ${path}`];
      if (ownHandler !== undefined || TEXT_CALLS[`${call.method} ${path}`] === undefined) calls.push(call);
      const handler = ownHandler ?? TEXT_CALLS[`${call.method} ${path}`];
      const aborted = new Promise<never>((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error)),
      );
      const answering = async () =>
        handler ? handler(call) : { status: 404, body: { error: 2, message: 'not found', result: null } };
      const answer = await Promise.race([answering(), aborted]);
      if (handler !== undefined && answer.offContract === undefined) {
        const publicCall = path.startsWith(API_BASE_PATH);
        contractDrift.push(
          ...contractProblems(
            publicCall ? PAGE_ANSWERS : CONSOLE_ANSWERS,
            call.method,
            publicCall ? path.slice(API_BASE_PATH.length) : path,
            answer.status ?? 200,
            answer.body,
          ),
        );
      }
      return new Response(JSON.stringify(answer.body), { status: answer.status ?? 200 });
    }),
  );
  return calls;
}

export const envelope = (result: unknown): Answer => ({ body: { error: 0, message: '', result } });
export const refusal = (status: number, error: number, message: string): Answer => ({
  status,
  body: { error, message, result: null },
});

/** An answer the test gives when it chooses (to see what a screen shows while it waits). */
export function heldAnswer(): { promise: Promise<Answer>; give: (answer: Answer) => void } {
  let give: (answer: Answer) => void = () => undefined;
  const promise = new Promise<Answer>((resolve) => (give = resolve));
  return { promise, give };
}

/** Renders a console screen in English; `onSignedOut` is told when a call finds the session gone. */
export function renderConsole(ui: ReactNode, onSignedOut: () => void = () => undefined) {
  const i18n: ConsoleI18n = {
    language: 'en',
    languages: BUILT_IN_LANGUAGES,
    t: createConsoleTranslator(shippedCatalog('en')),
    formatTime: (iso) => iso,
    switchLanguage: () => undefined,
  };
  // A wrapper, so that `rerender` keeps the texts and the sign-out.
  const wrapper = ({ children }: { children: ReactNode }) => (
    <ConsoleI18nProvider value={i18n}>
      <SignedOutContext.Provider value={onSignedOut}>{children}</SignedOutContext.Provider>
    </ConsoleI18nProvider>
  );
  return render(ui, { wrapper });
}
