import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { usePromise, valueOf } from './use-promise';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('usePromise', () => {
  it('answers pending, then the value or the error', async () => {
    const call = deferred<string>();
    const { result } = renderHook(() => usePromise(() => call.promise, []));
    expect(result.current).toEqual({ state: 'pending' });
    await act(async () => call.resolve('done'));
    expect(result.current).toEqual({ state: 'fulfilled', value: 'done' });

    const failing = deferred<string>();
    const second = renderHook(() => usePromise(() => failing.promise, []));
    await act(async () => failing.reject(new Error('no')));
    expect(second.result.current).toMatchObject({ state: 'rejected', error: new Error('no') });
  });

  it('aborts when the component leaves or the inputs change, and never applies a late answer', async () => {
    const calls: { signal: AbortSignal; call: ReturnType<typeof deferred<string>> }[] = [];
    const { result, rerender, unmount } = renderHook(
      ({ id }: { id: number }) =>
        usePromise(
          (signal) => {
            const call = deferred<string>();
            calls.push({ signal, call });
            return call.promise;
          },
          [id],
        ),
      { initialProps: { id: 1 } },
    );
    rerender({ id: 2 });
    expect(calls[0]?.signal.aborted).toBe(true);
    await act(async () => calls[0]?.call.resolve('stale'));
    expect(result.current).toEqual({ state: 'pending' });
    await act(async () => calls[1]?.call.resolve('fresh'));
    expect(result.current).toEqual({ state: 'fulfilled', value: 'fresh' });
    unmount();
    expect(calls[1]?.signal.aborted).toBe(true);
  });

  it('is idle while there is nothing to do, and starts when the inputs ask for it', async () => {
    const call = deferred<string>();
    const { result, rerender } = renderHook(
      ({ ready }: { ready: boolean }) => usePromise(() => (ready ? call.promise : undefined), [ready]),
      { initialProps: { ready: false } },
    );
    expect(result.current).toEqual({ state: 'idle' });
    rerender({ ready: true });
    expect(result.current).toEqual({ state: 'pending' });
    await act(async () => call.resolve('now'));
    expect(valueOf(result.current)).toBe('now');
  });
});
