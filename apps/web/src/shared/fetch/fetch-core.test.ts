import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleCallError, consoleCall } from '../../console/api/console-call';
import { NetworkError } from '../../api/api-error';
import { request } from '../../api/request';
import {
  addressOf,
  DEFAULT_TIMEOUT_MS,
  envelopeOf,
  fetchJson,
  FetchFailure,
  setCallLanguage,
} from './fetch-core';

/** A fetch that answers only when its signal aborts, as a stalled connection does. */
function stalledFetch() {
  const fetch = vi.fn(
    (_url: string, init: RequestInit = {}) =>
      new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      }),
  );
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

function answering(status: number, text: string) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) => new Response(text, { status }));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the fetch core', () => {
  it('sends JSON with the language and the caller headers, and reads JSON back', async () => {
    const fetch = answering(200, '{"error":0,"message":"","result":[1]}');
    setCallLanguage('pt_BR');
    const answer = await fetchJson('/dea/api/any', {
      method: 'POST',
      body: { a: 1 },
      headers: { 'X-Token': 't', 'X-Absent': undefined },
    });
    expect(answer).toEqual({ status: 200, ok: true, body: { error: 0, message: '', result: [1] } });
    const init = fetch.mock.calls[0]?.[1];
    const headers = new Headers(init?.headers);
    expect(headers.get('Accept-Language')).toBe('pt-BR');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(headers.get('X-Token')).toBe('t');
    expect(headers.has('X-Absent')).toBe(false);
    expect(init?.body).toBe('{"a":1}');
    expect(init?.credentials).toBe('same-origin');
  });

  it('sends no body and no Content-Type on GET', async () => {
    const fetch = answering(200, '{}');
    await fetchJson('/dea/api/any');
    const init = fetch.mock.calls[0]?.[1];
    expect(init?.body).toBeUndefined();
    expect(new Headers(init?.headers).has('Content-Type')).toBe(false);
  });

  it('answers a body that is not JSON as undefined, with its status', async () => {
    answering(502, '<html>Bad gateway</html>');
    expect(await fetchJson('/dea/api/any')).toEqual({ status: 502, ok: false, body: undefined });
  });

  it('names a connection that failed as a network failure', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    await expect(fetchJson('/dea/api/any')).rejects.toMatchObject({ kind: 'network' });
  });

  it('gives up after its timeout on a server that never answers', async () => {
    vi.useFakeTimers();
    stalledFetch();
    const call = fetchJson('/dea/api/any', { timeoutMs: 5_000 });
    const failed = expect(call).rejects.toMatchObject({ kind: 'timeout' });
    await vi.advanceTimersByTimeAsync(4_999);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
  });

  it('waits DEFAULT_TIMEOUT_MS when the caller names no timeout, and no longer', async () => {
    vi.useFakeTimers();
    stalledFetch();
    let settled = false;
    const call = fetchJson('/dea/api/any').finally(() => (settled = true));
    const failed = expect(call).rejects.toBeInstanceOf(FetchFailure);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
  });

  it("ends at once when the caller's signal aborts, before or during the call", async () => {
    stalledFetch();
    const during = new AbortController();
    const call = fetchJson('/dea/api/any', { signal: during.signal });
    during.abort();
    await expect(call).rejects.toMatchObject({ kind: 'aborted' });
    await expect(fetchJson('/dea/api/any', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      kind: 'aborted',
    });
  });

  it('builds an address with the defined query values only', () => {
    expect(addressOf('/dea/api/x', { a: '1', b: undefined, c: '' })).toBe('/dea/api/x?a=1&c=');
  });

  it("decodes the contract's envelope, and nothing else", () => {
    expect(envelopeOf({ error: 148, message: 'Too many', result: null })).toEqual({
      error: 148,
      message: 'Too many',
      result: null,
    });
    expect(envelopeOf({ result: 3 })).toEqual({ error: 0, message: '', result: 3 });
    expect(envelopeOf({ error: 'x' })).toBeUndefined();
    expect(envelopeOf({ error: true })).toBeUndefined();
    // Spec section 3: 0 or falsy is success.
    for (const error of [0, false, null, '', undefined, Number.NaN])
      expect(envelopeOf({ error, message: '', result: 'r' }), String(error)).toEqual({
        error: 0,
        message: '',
        result: 'r',
      });
    expect(envelopeOf({ error: '148', message: 'Full' })).toMatchObject({ error: 148, message: 'Full' });
    expect(envelopeOf([1])).toBeUndefined();
    expect(envelopeOf(null)).toBeUndefined();
  });
});

describe('the page and the console on the core', () => {
  it('each turn a timeout into their own error', async () => {
    vi.useFakeTimers();
    stalledFetch();
    const page = expect(request('any')).rejects.toBeInstanceOf(NetworkError);
    const console = consoleCall('me').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS);
    await page;
    const failure = await console;
    expect(failure).toBeInstanceOf(ConsoleCallError);
    expect(failure).toMatchObject({ status: 0 });
  });

  it('each read the envelope of a refusal the same way', async () => {
    answering(200, '{"error":148,"message":"Too many unused codes.","result":null}');
    await expect(consoleCall('helpdesk/users/u1/codes', { method: 'POST' })).rejects.toMatchObject({
      status: 200,
      errorNumber: 148,
      serverMessage: 'Too many unused codes.',
    });
  });
});
