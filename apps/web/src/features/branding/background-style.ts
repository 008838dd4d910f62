import type { CSSProperties } from 'react';
import { safeUrl } from '../../shared/sanitize-html';
import type { CustomBranding } from './resolve-branding';

/** The administrator's background image as a style of the page, when it is a plain image URL. */
export function backgroundStyle(branding: CustomBranding): CSSProperties | undefined {
  const url = branding.backgroundImage ? safeUrl(branding.backgroundImage, 'image') : undefined;
  return url === undefined ? undefined : { backgroundImage: `url(${JSON.stringify(url)})` };
}
