import type { UserInfo } from '@dea/contract';
import { useEffect, useRef, useState } from 'react';
import { failureMessage } from '../../../api/failure-message';
import { getUserInfo } from '../../../api/methods';
import type { PageMessage } from '../../../shared/i18n/page-message';

export type SignedInUser = { state: 'loading' } | { state: 'known'; user: UserInfo } | { state: 'failed' };

/** Who is signed in (POST userinfo), the first call of the startup (spec section 4). */
export function useSignedInUser(report: (message: PageMessage) => void): SignedInUser {
  const [user, setUser] = useState<SignedInUser>({ state: 'loading' });
  const reportRef = useRef(report);
  reportRef.current = report;

  useEffect(() => {
    let current = true;
    getUserInfo().then(
      (info) => current && setUser({ state: 'known', user: info }),
      (error: unknown) => {
        if (!current) return;
        console.error('The signed-in user could not be loaded', error);
        const message = failureMessage(error);
        if (message) reportRef.current(message);
        setUser({ state: 'failed' });
      },
    );
    return () => {
      current = false;
    };
  }, []);
  return user;
}
