import { act, renderHook } from '@testing-library/react';
import { useLayoutEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { useLatestValue, usePromise, valueOf } from './use-promise';

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

  it("renders an answer in slices that leave the main thread to other tasks (a slow phone's long task)", async () => {
    // React's own scheduler, as in a browser: outside act(), which would render at once.
    vi.stubGlobal('IS_REACT_ACT_ENVIRONMENT', false);
    const call = deferred<string>();
    const SLICES = 30;
    let renderStarted = false;
    let committed = false;
    let tasksBetween = 0;
    function Busy() {
      renderStarted = true;
      const until = performance.now() + 3;
      while (performance.now() < until) {
        // A component that takes 3 ms to render, as a slow phone takes for a small one.
      }
      return null;
    }
    function Committed() {
      useLayoutEffect(() => {
        committed = true;
      });
      return null;
    }
    function Answer() {
      const loaded = usePromise(() => call.promise, []);
      if (loaded.state !== 'fulfilled') return null;
      return (
        <>
          {Array.from({ length: SLICES }, (_, index) => (
            <Busy key={index} />
          ))}
          <Committed />
        </>
      );
    }
    // Another task of the page (an input's event), posted again and again until the commit: each
    // one that runs after the render began ran between two of its slices.
    const otherTask = new MessageChannel();
    const container = document.createElement('div');
    const root = createRoot(container);
    try {
      root.render(<Answer />);
      await vi.waitFor(() => expect(container.childNodes).toHaveLength(0));
      const tick = () => {
        if (committed) return;
        if (renderStarted) tasksBetween += 1;
        otherTask.port2.postMessage(undefined);
      };
      otherTask.port1.onmessage = tick;
      tick();
      call.resolve('done');
      await vi.waitFor(() => expect(committed).toBe(true), { timeout: 30_000 });
      expect(tasksBetween).toBeGreaterThan(0);
    } finally {
      otherTask.port1.close();
      root.unmount();
      vi.unstubAllGlobals();
    }
  });

  it('keeps the last value while the load runs again and when that fails, none before the first', async () => {
    const calls: ReturnType<typeof deferred<string>>[] = [];
    const { result, rerender } = renderHook(
      ({ round }: { round: number }) =>
        useLatestValue(
          usePromise(() => {
            const call = deferred<string>();
            calls.push(call);
            return call.promise;
          }, [round]),
        ),
      { initialProps: { round: 0 } },
    );
    expect(result.current).toBeUndefined();
    await act(async () => calls[0]?.resolve('first'));
    expect(result.current).toBe('first');
    rerender({ round: 1 });
    expect(result.current).toBe('first');
    await act(async () => calls[1]?.reject(new Error('no')));
    expect(result.current).toBe('first');
    rerender({ round: 2 });
    await act(async () => calls[2]?.resolve('second'));
    expect(result.current).toBe('second');
  });
});
