import { API_BASE_PATH } from '@dea/contract';
import { act, renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { shippedCatalog } from '../../testing/catalogs';
import { fakeConsoleApi, heldAnswer, type Answer, type ConsoleCall } from '../testing/render-console';
import { LANGUAGE_STORAGE_KEY, useConsoleLanguage } from './console-i18n';

const MESSAGES = `GET ${API_BASE_PATH}message`;
const catalogOf = (call: ConsoleCall): Answer => ({
  body: { ...shippedCatalog('en'), ...shippedCatalog(call.query?.lang ?? 'en') },
});
const textsAsked = (calls: ConsoleCall[]) =>
  calls.filter((call) => call.path === `${API_BASE_PATH}message`).map((call) => call.query?.lang ?? 'en');

beforeEach(() => {
  window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'en');
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

describe("the console's language", () => {
  it('loads the list, then the texts of the stored choice, and speaks them', async () => {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, 'de');
    const calls = fakeConsoleApi({ [MESSAGES]: catalogOf });
    const { result } = renderHook(() => useConsoleLanguage());
    expect(result.current).toMatchObject({ i18n: undefined, failed: false });
    await waitFor(() => expect(result.current.i18n?.language).toBe('de'));
    expect(result.current.i18n?.t('signIn.heading')).toBe('Bei der Konsole anmelden');
    expect(document.documentElement.lang).toBe('de');
    expect(textsAsked(calls)).toEqual(['de']);
  });

  it('stays in the language it speaks when the texts of a switch fail', async () => {
    const calls = fakeConsoleApi({
      [MESSAGES]: (call) =>
        call.query?.lang === 'fr' ? { status: 503, body: 'down', offContract: 'failing' } : catalogOf(call),
    });
    const { result } = renderHook(() => useConsoleLanguage());
    await waitFor(() => expect(result.current.i18n?.language).toBe('en'));
    act(() => result.current.i18n?.switchLanguage('fr'));
    await waitFor(() => expect(textsAsked(calls)).toEqual(['en', 'fr']));
    await waitFor(() => expect(console.error).toHaveBeenCalled());
    expect(result.current.i18n?.language).toBe('en');
    expect(result.current.failed).toBe(false);
    expect(document.documentElement.lang).toBe('en');
  });

  it('asks again for the texts of a language chosen again after they failed', async () => {
    let reachable = false;
    const calls = fakeConsoleApi({
      [MESSAGES]: (call) =>
        call.query?.lang === 'fr' && !reachable
          ? { status: 503, body: 'down', offContract: 'failing' }
          : catalogOf(call),
    });
    const { result } = renderHook(() => useConsoleLanguage());
    await waitFor(() => expect(result.current.i18n?.language).toBe('en'));
    act(() => result.current.i18n?.switchLanguage('fr'));
    await waitFor(() => expect(console.error).toHaveBeenCalled());
    reachable = true;
    act(() => result.current.i18n?.switchLanguage('fr'));
    await waitFor(() => expect(result.current.i18n?.language).toBe('fr'));
    expect(textsAsked(calls)).toEqual(['en', 'fr', 'fr']);
  });

  it('speaks the language chosen last when an earlier choice answers after it', async () => {
    const german = heldAnswer();
    fakeConsoleApi({ [MESSAGES]: (call) => (call.query?.lang === 'de' ? german.promise : catalogOf(call)) });
    const { result } = renderHook(() => useConsoleLanguage());
    await waitFor(() => expect(result.current.i18n?.language).toBe('en'));
    act(() => result.current.i18n?.switchLanguage('de'));
    act(() => result.current.i18n?.switchLanguage('fr'));
    await waitFor(() => expect(result.current.i18n?.language).toBe('fr'));
    await act(async () => german.give({ body: { ...shippedCatalog('en'), ...shippedCatalog('de') } }));
    expect(result.current.i18n?.language).toBe('fr');
    expect(document.documentElement.lang).toBe('fr');
  });

  it('says the start failed when the list cannot be loaded, and loads it again on request', async () => {
    let reachable = false;
    fakeConsoleApi({
      [`GET ${API_BASE_PATH}resourceFile/getLanguageList`]: () =>
        reachable
          ? { body: { error: 0, message: '', result: [{ languageCode: 'en', languageName: 'English' }] } }
          : { status: 503, body: 'down', offContract: 'failing' },
      [MESSAGES]: catalogOf,
    });
    const { result } = renderHook(() => useConsoleLanguage());
    await waitFor(() => expect(result.current.failed).toBe(true));
    reachable = true;
    act(() => result.current.retry());
    expect(result.current.failed).toBe(false);
    await waitFor(() => expect(result.current.i18n?.language).toBe('en'));
  });
});
