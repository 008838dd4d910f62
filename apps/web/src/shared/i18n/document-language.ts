import { isRightToLeft } from '@dea/contract';

/** `<html lang dir>` follow the chosen language, so screen readers and layout do too. */
export function applyDocumentLanguage(languageCode: string): void {
  const root = document.documentElement;
  root.lang = languageCode.replace('_', '-');
  root.dir = isRightToLeft(languageCode) ? 'rtl' : 'ltr';
}
