import type { BrandingName } from '@dea/contract';
import { SafeHtml } from '../../../shared/components/safe-html';
import type { CustomBranding } from '../resolve-branding';

/** One HTML segment of the header or footer: the administrator's, sanitized, or the default text. */
export function BrandedHtml({
  branding,
  name,
  fallback,
}: {
  branding: CustomBranding;
  name: BrandingName;
  fallback: string;
}) {
  const custom = branding[name];
  return custom === undefined ? <>{fallback}</> : <SafeHtml html={custom} />;
}
