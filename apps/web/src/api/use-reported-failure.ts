import { useEffect, useRef } from 'react';
import type { PromiseState } from '../shared/hooks/use-promise';
import type { PageMessage } from '../shared/i18n/page-message';
import { failureMessage } from './failure-message';

/**
 * A failed startup call is logged and its message shown in the page's error area (spec section 8),
 * once per failure.
 */
export function useReportedFailure(
  loaded: PromiseState<unknown>,
  what: string,
  report: (message: PageMessage) => void,
): void {
  const reportRef = useRef(report);
  useEffect(() => {
    reportRef.current = report;
  });
  useEffect(() => {
    if (loaded.state !== 'rejected') return;
    console.error(what, loaded.error);
    const message = failureMessage(loaded.error);
    if (message) reportRef.current(message);
  }, [loaded, what]);
}
