import { useContext, useEffect, type DependencyList } from 'react';
import { useLoad, type Load } from '../../shared/hooks/use-load';
import { SignedOutContext } from '../session/signed-out-context';
import { ConsoleCallError } from './console-call';

/** What a console screen shows; `error` is never a session that ended: that returns to the sign-in. */
export type ConsoleLoad<T> = Load<T>;

/**
 * How a console screen loads what it shows: the web application's `useLoad` (abortable, a reload
 * keeps the shown value until the new one arrives), with a failure because the console session
 * ended (401) taking the operator back to the sign-in instead of showing on the screen.
 */
export function useConsoleLoad<T>(
  start: (signal: AbortSignal) => Promise<T> | undefined,
  deps: DependencyList,
): ConsoleLoad<T> {
  const loaded = useLoad(start, deps);
  const onSignedOut = useContext(SignedOutContext);
  const sessionEnded = loaded.error instanceof ConsoleCallError && loaded.error.signedOut;
  useEffect(() => {
    if (sessionEnded) onSignedOut();
  }, [sessionEnded, onSignedOut]);
  return sessionEnded ? { ...loaded, error: undefined } : loaded;
}
