import { getBranding } from '../../../api/methods';
import { usePromise } from '../../../shared/hooks/use-promise';
import { customBranding, type CustomBranding } from '../resolve-branding';

/**
 * Branding settings; `undefined` while they load (or until `when` asks for them: the page loads
 * them after its texts, spec section 4). A failure leaves every default in place and never sends
 * the user to sign in (spec section 8).
 */
export function useBranding(when = true): CustomBranding | undefined {
  const loaded = usePromise(
    (signal) =>
      when
        ? getBranding(signal).then(customBranding, (error: unknown) => {
            if (!signal.aborted) console.error('Branding could not be loaded; the defaults apply', error);
            return {};
          })
        : undefined,
    [when],
  );
  return loaded.state === 'fulfilled' ? loaded.value : undefined;
}
