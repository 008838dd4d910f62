/** Branding entries of spec section 3. */
export const BRANDING_NAMES = [
  'CSS',
  'backgroundImage',
  'footerLeft',
  'footerMiddle',
  'footerRight',
  'headerLeft',
  'headerMiddle',
  'headerRight',
  'htmlTitle',
] as const;
export type BrandingName = (typeof BRANDING_NAMES)[number];

export const BRANDING_TYPES = ['text', 'html', 'css', 'image'] as const;
export type BrandingType = (typeof BRANDING_TYPES)[number];

/** The type of value each known entry holds. */
export const BRANDING_TYPE_OF: Readonly<Record<BrandingName, BrandingType>> = {
  CSS: 'css',
  backgroundImage: 'image',
  footerLeft: 'html',
  footerMiddle: 'html',
  footerRight: 'html',
  headerLeft: 'image',
  headerMiddle: 'html',
  headerRight: 'html',
  htmlTitle: 'text',
};

export function isBrandingName(value: string): value is BrandingName {
  return (BRANDING_NAMES as readonly string[]).includes(value);
}
