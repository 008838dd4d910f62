import type { UserInfo } from '@dea/contract';
import { getUserInfo } from '../../../api/methods';
import { useReportedFailure } from '../../../api/use-reported-failure';
import { usePromise } from '../../../shared/hooks/use-promise';
import type { PageMessage } from '../../../shared/i18n/page-message';

export type SignedInUser =
  | { state: 'loading' }
  | { state: 'known'; user: UserInfo }
  | { state: 'failed'; error: unknown };

/** Who is signed in (POST userinfo), the first call of the startup (spec section 4). */
export function useSignedInUser(report: (message: PageMessage) => void): SignedInUser {
  const loaded = usePromise((signal) => getUserInfo(signal), []);
  useReportedFailure(loaded, 'The signed-in user could not be loaded', report);
  if (loaded.state === 'fulfilled') return { state: 'known', user: loaded.value };
  return loaded.state === 'rejected' ? { state: 'failed', error: loaded.error } : { state: 'loading' };
}
