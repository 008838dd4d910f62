import type { UserInfo } from '@dea/contract';
import { useEffect, useRef } from 'react';
import { failureMessage } from '../../../api/failure-message';
import { getUserInfo } from '../../../api/methods';
import { usePromise } from '../../../shared/hooks/use-promise';
import type { PageMessage } from '../../../shared/i18n/page-message';

export type SignedInUser = { state: 'loading' } | { state: 'known'; user: UserInfo } | { state: 'failed' };

/** Who is signed in (POST userinfo), the first call of the startup (spec section 4). */
export function useSignedInUser(report: (message: PageMessage) => void): SignedInUser {
  const loaded = usePromise((signal) => getUserInfo(signal), []);
  const reportRef = useRef(report);
  useEffect(() => {
    reportRef.current = report;
  });
  useEffect(() => {
    if (loaded.state !== 'rejected') return;
    console.error('The signed-in user could not be loaded', loaded.error);
    const message = failureMessage(loaded.error);
    if (message) reportRef.current(message);
  }, [loaded]);
  if (loaded.state === 'pending') return { state: 'loading' };
  return loaded.state === 'fulfilled' ? { state: 'known', user: loaded.value } : { state: 'failed' };
}
