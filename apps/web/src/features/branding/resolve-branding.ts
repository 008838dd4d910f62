import { isBrandingName, type BrandingEntry, type BrandingName } from '@dea/contract';

/**
 * The administrator's value of each branding entry, or nothing where the built-in default
 * applies: the entry is missing, or `isDefault` is true (spec section 3), whatever its value.
 */
export type CustomBranding = Partial<Record<BrandingName, string>>;

export function customBranding(entries: readonly BrandingEntry[]): CustomBranding {
  const custom: CustomBranding = {};
  for (const entry of entries) {
    if (entry.isDefault || !isBrandingName(entry.name)) continue;
    custom[entry.name] = entry.value;
  }
  return custom;
}
