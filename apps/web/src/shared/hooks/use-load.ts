import { useCallback, useState, type DependencyList } from 'react';
import { usePromise } from './use-promise';

export interface Load<T> {
  /**
   * What was loaded: while a reload runs, what the same inputs loaded last (the screen stays and
   * says it is busy); `undefined` before the first answer and after inputs change.
   */
  value: T | undefined;
  /** True while a load runs. */
  busy: boolean;
  /** The failure of the last load. */
  error: unknown;
  /** Loads again with the same inputs (after a change the screen made). */
  reload: () => void;
}

const sameInputs = (a: DependencyList, b: DependencyList) =>
  a.length === b.length && a.every((each, index) => Object.is(each, b[index]));

/**
 * How a screen loads what it shows: `usePromise` (abortable, a late answer of left inputs never
 * applied), plus a reload that keeps the shown value until the new one arrives.
 */
export function useLoad<T>(
  start: (signal: AbortSignal) => Promise<T> | undefined,
  deps: DependencyList,
): Load<T> {
  const [round, setRound] = useState(0);
  const loaded = usePromise(start, [...deps, round]);
  const [kept, setKept] = useState<{ value: T; inputs: DependencyList }>();
  if (loaded.state === 'fulfilled' && (kept === undefined || kept.value !== loaded.value)) {
    setKept({ value: loaded.value, inputs: deps });
  }
  const reload = useCallback(() => setRound((now) => now + 1), []);
  const value =
    loaded.state === 'fulfilled'
      ? loaded.value
      : kept !== undefined && sameInputs(kept.inputs, deps)
        ? kept.value
        : undefined;
  return {
    value,
    busy: loaded.state === 'pending',
    error: loaded.state === 'rejected' ? loaded.error : undefined,
    reload,
  };
}
