import { startTransition, useEffect, useState, type DependencyList } from 'react';

export type PromiseState<T> =
  | { state: 'idle' }
  | { state: 'pending' }
  | { state: 'fulfilled'; value: T }
  | { state: 'rejected'; error: unknown };

/**
 * Runs `start` when the component mounts and whenever `deps` change, and answers where it stands.
 * `start` answers `undefined` when there is nothing to do yet (state 'idle'; 'pending' until the
 * first run has told). The signal aborts
 * when the component leaves or `deps` change: the call is cancelled and a late answer is never
 * applied.
 */
export function usePromise<T>(
  start: (signal: AbortSignal) => Promise<T> | undefined,
  deps: DependencyList,
): PromiseState<T> {
  const [state, setState] = useState<PromiseState<T>>({ state: 'pending' });
  // oxlint-disable-next-line react-hooks/exhaustive-deps -- a caller's list the rule reads as none
  useEffect(() => {
    const controller = new AbortController();
    const running = start(controller.signal);
    if (running === undefined) {
      setState({ state: 'idle' });
      return;
    }
    setState({ state: 'pending' });
    // What an answer shows is rendered as a transition, in slices that leave the main thread
    // to the browser in between (no long task on a slow phone).
    const settle = (next: PromiseState<T>) => {
      if (!controller.signal.aborted) startTransition(() => setState(next));
    };
    running.then(
      (value) => settle({ state: 'fulfilled', value }),
      (error: unknown) => settle({ state: 'rejected', error }),
    );
    return () => controller.abort();
    // The caller names what `start` depends on, as with useEffect.
    // oxlint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return state;
}

/**
 * The value of the last answer that came, kept while the load runs again (new inputs, a new
 * round) and when that fails: what a screen goes on showing until the next answer.
 * `undefined` before the first.
 */
export function useLatestValue<T>(loaded: PromiseState<T>): T | undefined {
  const [latest, setLatest] = useState<{ value: T }>();
  if (loaded.state === 'fulfilled' && (latest === undefined || latest.value !== loaded.value))
    setLatest({ value: loaded.value });
  return loaded.state === 'fulfilled' ? loaded.value : latest?.value;
}

/** The value once fulfilled, `undefined` before (and on failure). */
export function valueOf<T>(loaded: PromiseState<T>): T | undefined {
  return loaded.state === 'fulfilled' ? loaded.value : undefined;
}
