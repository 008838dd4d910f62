import { getBranding } from '../../../api/methods';
import { usePromise } from '../../../shared/hooks/use-promise';
import { customBranding, type CustomBranding } from '../resolve-branding';

/**
 * Branding settings; `undefined` while they load. A failure leaves every default in place and
 * never sends the user to sign in (spec section 8).
 */
export function useBranding(): CustomBranding | undefined {
  const loaded = usePromise(async (signal) => {
    try {
      return customBranding(await getBranding(signal));
    } catch (error) {
      if (!signal.aborted) console.error('Branding could not be loaded; the defaults apply', error);
      return {};
    }
  }, []);
  return loaded.state === 'fulfilled' ? loaded.value : undefined;
}
