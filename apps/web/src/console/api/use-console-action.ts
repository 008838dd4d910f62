import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { ConsoleCallError } from './console-call';
import { SignedOutContext } from '../session/signed-out-context';

export interface ConsoleAction {
  busy: boolean;
  /** The failure of the last run, until the next run starts. */
  error: unknown;
  /** Runs one call at a time; answers undefined when it failed (the failure is in `error`). */
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>;
  clear: () => void;
}

/**
 * The busy and failed state of one thing a screen does. A failure because the console session
 * ended (401) takes the operator back to the sign-in instead of showing on the screen.
 */
export function useConsoleAction(): ConsoleAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const onSignedOut = useContext(SignedOutContext);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = useCallback(
    async <T>(work: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        return await work();
      } catch (failure) {
        if (failure instanceof ConsoleCallError && failure.signedOut) onSignedOut();
        else if (mounted.current) setError(failure);
        return undefined;
      } finally {
        if (mounted.current) setBusy(false);
      }
    },
    [onSignedOut],
  );
  const clear = useCallback(() => setError(undefined), []);
  return { busy, error, run, clear };
}
