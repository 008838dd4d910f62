import { useCallback, useContext, useEffect, useState, type DependencyList } from 'react';
import { usePromise } from '../../shared/hooks/use-promise';
import { SignedOutContext } from '../session/signed-out-context';
import { ConsoleCallError } from './console-call';

export interface ConsoleLoad<T> {
  /**
   * What was loaded: while a reload runs, what the same inputs loaded last (the screen stays and
   * says it is busy); `undefined` before the first answer and after inputs change.
   */
  value: T | undefined;
  /** True while a load runs. */
  busy: boolean;
  /** The failure of the last load (never a session that ended: that returns to the sign-in). */
  error: unknown;
  /** Loads again with the same inputs (after a change the screen made). */
  reload: () => void;
}

const sameInputs = (a: DependencyList, b: DependencyList) =>
  a.length === b.length && a.every((each, index) => Object.is(each, b[index]));

/**
 * How a console screen loads what it shows: the page's `usePromise` (abortable, a late answer of
 * left inputs never applied), plus a reload that keeps the shown value until the new one
 * arrives, and a failure because the console session ended (401) taking the operator back to the
 * sign-in instead of showing on the screen.
 */
export function useConsoleLoad<T>(
  start: (signal: AbortSignal) => Promise<T> | undefined,
  deps: DependencyList,
): ConsoleLoad<T> {
  const [round, setRound] = useState(0);
  const loaded = usePromise(start, [...deps, round]);
  const onSignedOut = useContext(SignedOutContext);
  const [kept, setKept] = useState<{ value: T; inputs: DependencyList }>();
  if (loaded.state === 'fulfilled' && (kept === undefined || kept.value !== loaded.value)) {
    setKept({ value: loaded.value, inputs: deps });
  }
  const sessionEnded =
    loaded.state === 'rejected' && loaded.error instanceof ConsoleCallError && loaded.error.signedOut;
  useEffect(() => {
    if (sessionEnded) onSignedOut();
  }, [sessionEnded, onSignedOut]);
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
    error: loaded.state === 'rejected' && !sessionEnded ? loaded.error : undefined,
    reload,
  };
}
