import { createHash } from 'node:crypto';
import { DEFAULT_LANGUAGE, isRightToLeft, type PageStartupAnswers } from '@dea/contract';

/**
 * What the page's and the login application's HTML paint before their scripts run (issue 37): the
 * spec's loading state (section 2: the texts are known, branding not yet), in the language of the
 * texts the HTML carries, where the built HTML has only a spinner; and the entry module started
 * after that first paint, so that a phone paints it before it spends its time on the scripts.
 */

/** The comments around what the built HTML paints before the scripts (apps/web/entries/*). */
const FIRST_PAINT = /<!--first-paint-->[\s\S]*?<!--\/first-paint-->/;

/** Marks the entry module's preload; the script below starts that module. */
export const ENTRY_ATTRIBUTE = 'data-dea-entry';

/**
 * Starts the entry module once the browser has shown its first contentful paint (the loading
 * state's texts), told by the Paint Timing API; at once in a tab that is not shown (where nothing
 * paints), when the HTML has no text to paint (the spinner as built) or in a browser without the
 * API; and after at most `SAFETY_MS` whatever happens. Its files were asked for with the HTML
 * (module preloads), so this delays no download, only their running; module scripts wait for the
 * style sheet anyway, which the paint waits for too.
 */
const SAFETY_MS = 1000;
export const START_AFTER_FIRST_PAINT_SCRIPT = `(function () {
  var d = document;
  var entry = d.querySelector('link[${ENTRY_ATTRIBUTE}]');
  if (!entry) return;
  var started = false;
  function start() {
    if (started) return;
    started = true;
    var script = d.createElement('script');
    script.type = 'module';
    script.setAttribute('crossorigin', '');
    script.src = entry.getAttribute('href');
    d.head.appendChild(script);
  }
  var root = d.getElementById('root');
  var text = root !== null && /\\S/.test(root.textContent || '');
  var api = typeof PerformanceObserver === 'function' &&
    (PerformanceObserver.supportedEntryTypes || []).indexOf('paint') >= 0;
  if (d.visibilityState !== 'visible' || !text || !api) return start();
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (paint) {
      if (paint.name === 'first-contentful-paint') start();
    });
  }).observe({ type: 'paint', buffered: true });
  setTimeout(start, ${SAFETY_MS});
})();`;

/** The script's hash for the Content-Security-Policy, which allows no other inline script. */
export const START_AFTER_FIRST_PAINT_SCRIPT_HASH = `'sha256-${createHash('sha256').update(START_AFTER_FIRST_PAINT_SCRIPT).digest('base64')}'`;

const ENTRY_SCRIPT = /<script\b([^>]*)\btype="module"([^>]*)\bsrc="([^"]+)"([^>]*)><\/script>/;

/**
 * The built HTML with its entry module's tag turned into a module preload that the inline script
 * starts after the first paint. Every module preload is fetched at once, as before, but at low
 * priority: the first paint needs the HTML and the style sheet, not the scripts, so these come
 * first (Lighthouse's simulation also counts a script fetched at high priority as holding the first
 * paint back). HTML without an entry module is unchanged.
 */
export function startingAfterFirstPaint(template: string): string {
  const entry = ENTRY_SCRIPT.exec(template);
  if (entry === null || !template.includes('</body>')) return template;
  const crossorigin = /\bcrossorigin\b/.test(entry[0]) ? ' crossorigin' : '';
  return template
    .replace(entry[0], `<link rel="modulepreload"${crossorigin} href="${entry[3]}" ${ENTRY_ATTRIBUTE}>`)
    .replace(/<link rel="modulepreload"/g, '<link rel="modulepreload" fetchpriority="low"')
    .replace('</body>', `<script>${START_AFTER_FIRST_PAINT_SCRIPT}</script>\n  </body>`);
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

/** The texts among the startup answers (GET message), with the language they are in. */
function textsOf(
  answers: PageStartupAnswers,
): { language: string; texts: Record<string, unknown> } | undefined {
  for (const [key, answer] of Object.entries(answers)) {
    const [call, query] = key.split('?');
    if (call !== 'GET message' || typeof answer !== 'object' || answer === null) continue;
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
    `<span class="spinner" aria-hidden="true"></span><span class="spinner-label">${escapeHtml(loading)}</span>` +
    `</div><p class="loading-custom">${escapeHtml(loadingCustom)}</p></div>`;
  const lang = escapeHtml(found.language.replace('_', '-'));
  const dir = isRightToLeft(found.language) ? 'rtl' : 'ltr';
  return html
    .replace(FIRST_PAINT, () => `<!--first-paint-->${state}<!--/first-paint-->`)
    .replace(/<html\b[^>]*>/, `<html lang="${lang}" dir="${dir}">`);
}
