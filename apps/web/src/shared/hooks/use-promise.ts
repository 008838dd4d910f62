import { useEffect, useState, type DependencyList } from 'react';

export type PromiseState<T> =
  { state: 'pending' } | { state: 'fulfilled'; value: T } | { state: 'rejected'; error: unknown };

/**
 * Runs `start` when the component mounts and whenever `deps` change, and answers where it stands.
 * The signal aborts when the component leaves or `deps` change: the call is cancelled and a late
 * answer is never applied.
 */
export function usePromise<T>(
  start: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
): PromiseState<T> {
  const [state, setState] = useState<PromiseState<T>>({ state: 'pending' });
  useEffect(() => {
    const controller = new AbortController();
    setState({ state: 'pending' });
    start(controller.signal).then(
      (value) => !controller.signal.aborted && setState({ state: 'fulfilled', value }),
      (error: unknown) => !controller.signal.aborted && setState({ state: 'rejected', error }),
    );
    return () => controller.abort();
    // The caller names what `start` depends on, as with useEffect.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return state;
}
