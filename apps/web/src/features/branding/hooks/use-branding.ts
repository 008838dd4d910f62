import { useEffect, useState } from 'react';
import { getBranding } from '../../../api/methods';
import { customBranding, type CustomBranding } from '../resolve-branding';

/**
 * Branding settings; `undefined` while they load. A failure leaves every default in place and
 * never sends the user to sign in (spec section 8).
 */
export function useBranding(): CustomBranding | undefined {
  const [branding, setBranding] = useState<CustomBranding>();
  useEffect(() => {
    let current = true;
    getBranding().then(
      (entries) => current && setBranding(customBranding(entries)),
      (error: unknown) => {
        console.error('Branding could not be loaded; the defaults apply', error);
        if (current) setBranding({});
      },
    );
    return () => {
      current = false;
    };
  }, []);
  return branding;
}
