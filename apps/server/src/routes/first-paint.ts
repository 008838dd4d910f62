import {
  DEFAULT_LANGUAGE,
  PAGE_CALLS,
  isRightToLeft,
  messageFileName,
  pageCallKey,
  type PageStartupAnswers,
} from '@dea/contract';

/**
 * What the page's and the login application's HTML paint before their scripts run: the
 * spec's loading state (section 2: the texts are known, branding not yet), in the language of the
 * texts the HTML carries, where the built HTML has only a spinner; and their scripts fetched behind
 * what that paint needs.
 */

/** The comments around what the built HTML paints before the scripts (apps/web/entries/*). */
const FIRST_PAINT = /<!--first-paint-->[\s\S]*?<!--\/first-paint-->/;

/**
 * The built HTML with its module scripts and module preloads fetched at low priority: still at
 * once, but behind the style sheet that the first paint needs (the scripts are not needed for it).
 * Lighthouse's simulation counts a script fetched at high priority as holding the first paint back,
 * whenever it arrived before the paint, which on a fast connection it does.
 */
export function lowPriorityScripts(template: string): string {
  return template
    .replace(/<script type="module"/g, '<script type="module" fetchpriority="low"')
    .replace(/<link rel="modulepreload"/g, '<link rel="modulepreload" fetchpriority="low"');
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);

/** The key of GET message in the built-in language; another language's adds `?lang=`. */
const TEXTS_KEY = pageCallKey(PAGE_CALLS.messages(messageFileName(DEFAULT_LANGUAGE)));

/** The texts among the startup answers (GET message), with the language they are in. */
function textsOf(
  answers: PageStartupAnswers,
): { language: string; texts: Record<string, unknown> } | undefined {
  for (const [key, answer] of Object.entries(answers)) {
    const [call, query] = key.split('?');
    if (call !== TEXTS_KEY || typeof answer !== 'object' || answer === null) continue;
    const language = new URLSearchParams(query ?? '').get('lang') ?? DEFAULT_LANGUAGE;
    return { language, texts: answer as Record<string, unknown> };
  }
  return undefined;
}

/**
 * The HTML painting the spec's loading state in the language of the texts among `answers` (the
 * markup of BrandedShell's state before branding, apps/web/src/app/branded-shell.tsx), with
 * `<html lang dir>` of that language; unchanged without texts or without the built HTML's markers.
 */
export function withLoadingState(html: string, answers: PageStartupAnswers): string {
  const found = textsOf(answers);
  const loading = found?.texts.loading;
  const loadingCustom = found?.texts.loadingCustom;
  if (found === undefined || typeof loading !== 'string' || typeof loadingCustom !== 'string') return html;
  if (!FIRST_PAINT.test(html)) return html;
  const state =
    '<div class="page-start">' +
    '<div class="spinner-wrap" role="status" aria-live="polite" aria-busy="true" data-testid="spinner">' +
    `<span class="spinner" aria-hidden="true"></span><h1 class="spinner-label">${escapeHtml(loading)}</h1>` +
    `</div><p class="loading-custom">${escapeHtml(loadingCustom)}</p></div>`;
  const lang = escapeHtml(found.language.replace('_', '-'));
  const dir = isRightToLeft(found.language) ? 'rtl' : 'ltr';
  return html
    .replace(FIRST_PAINT, () => `<!--first-paint-->${state}<!--/first-paint-->`)
    .replace(/<html\b[^>]*>/, `<html lang="${lang}" dir="${dir}">`);
}
