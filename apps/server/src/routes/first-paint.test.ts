import { PAGE_CALLS, pageCallKey } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { lowPriorityScripts, withLoadingState } from './first-paint.js';

const BUILT = `<!doctype html>
<html lang="en" dir="ltr">
  <head>
    <script type="module" crossorigin src="/dea/assets/login.js"></script>
    <link rel="modulepreload" crossorigin href="/dea/assets/shared.js">
    <link rel="stylesheet" crossorigin href="/dea/assets/login.css">
  </head>
  <body>
    <div id="root"><!--first-paint--><div class="page-start"><div class="spinner-wrap" aria-busy="true"><span class="spinner" aria-hidden="true"></span></div></div><!--/first-paint--></div>
  </body>
</html>
`;

const textsIn = (messageFile: string, texts: Record<string, string>) => ({
  [pageCallKey(PAGE_CALLS.messages(messageFile))]: texts,
});

describe("what the page's and the login form's HTML paint before their scripts", () => {
  it("is the spec's loading state in the language of the texts it carries, with <html lang dir> of it", () => {
    const german = withLoadingState(
      BUILT,
      textsIn('messages_de', { loading: 'Wird geladen…', loadingCustom: 'Einstellungen werden geladen…' }),
    );
    expect(german).toContain(
      '<div id="root"><!--first-paint--><div class="page-start"><div class="spinner-wrap" role="status" aria-live="polite" aria-busy="true" data-testid="spinner"><span class="spinner" aria-hidden="true"></span><h1 class="spinner-label">Wird geladen…</h1></div><p class="loading-custom">Einstellungen werden geladen…</p></div><!--/first-paint--></div>',
    );
    expect(german).toContain('<html lang="de" dir="ltr">');
    const arabic = withLoadingState(
      BUILT,
      textsIn('messages_ar', { loading: 'تحميل', loadingCustom: 'إعدادات' }),
    );
    expect(arabic).toContain('<html lang="ar" dir="rtl">');
    const english = withLoadingState(
      BUILT,
      textsIn('messages', { loading: 'Loading…', loadingCustom: 'Settings…' }),
    );
    expect(english).toContain('<html lang="en" dir="ltr">');
    expect(english).toContain('<h1 class="spinner-label">Loading…</h1>');
  });

  it("writes the texts as text: an operator's text holding markup paints as it reads", () => {
    const html = withLoadingState(
      BUILT,
      textsIn('messages', { loading: '<img src=x onerror=alert(1)>', loadingCustom: 'a & "b" \'c\' $& $1' }),
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('<h1 class="spinner-label">&lt;img src=x onerror=alert(1)&gt;</h1>');
    expect(html).toContain('<p class="loading-custom">a &amp; &quot;b&quot; &#39;c&#39; $&amp; $1</p>');
  });

  it('stays the spinner as built without texts, or in HTML without the markers', () => {
    expect(withLoadingState(BUILT, {})).toBe(BUILT);
    expect(withLoadingState(BUILT, textsIn('messages', { loading: 'Loading…' }))).toBe(BUILT);
    const unmarked = BUILT.replace('<!--first-paint-->', '');
    expect(withLoadingState(unmarked, textsIn('messages', { loading: 'L', loadingCustom: 'C' }))).toBe(
      unmarked,
    );
  });

  it('fetches the scripts at once but behind what that paint needs: module scripts and preloads at low priority', () => {
    const html = lowPriorityScripts(BUILT);
    expect(html).toContain(
      '<script type="module" fetchpriority="low" crossorigin src="/dea/assets/login.js"></script>',
    );
    expect(html).toContain(
      '<link rel="modulepreload" fetchpriority="low" crossorigin href="/dea/assets/shared.js">',
    );
    expect(html).toContain('<link rel="stylesheet" crossorigin href="/dea/assets/login.css">');
    expect(html).not.toMatch(/<script>/);
  });
});
