import { useCallback, useEffect, useRef, useState } from 'react';
import { EnvelopeError, isLeavingPage } from '../../api/api-error';
import { isBrowserRefusal } from './passkey-calls';
import type { Translate } from '../../shared/i18n/translator';

/**
 * One action of the passkey components at a time: busy while it runs, and what went wrong in
 * words the person can read: the browser's refusal, the server's own message, or the generic
 * text; nothing when the page is already leaving for the login (its session ended).
 */
export function usePasskeyAction(t: Translate) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
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
        if (mounted.current) setError(messageOf(failure, t));
        return undefined;
      } finally {
        if (mounted.current) setBusy(false);
      }
    },
    [t],
  );
  return { busy, error, run };
}

function messageOf(failure: unknown, t: Translate): string | undefined {
  if (isBrowserRefusal(failure)) return t('channels.passkeys.browserRefused');
  if (isLeavingPage(failure)) return undefined;
  if (failure instanceof EnvelopeError && failure.serverMessage !== '') return failure.serverMessage;
  return t('channels.passkeys.failed');
}
