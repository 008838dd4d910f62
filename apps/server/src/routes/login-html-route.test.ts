import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import {
  LOGIN_TEXT_KEYS,
  PAGE_CALLS,
  PAGE_PREFETCH_ELEMENT_ID,
  PAGE_STARTUP_ELEMENT_ID,
  pageCallKey,
  type PageCall,
  type PageStartupAnswers,
} from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API } from '../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

const LOGIN = `<!doctype html>
<html lang="en">
  <head>
    <script type="module" crossorigin src="/dea/assets/login.js"></script>
    <link rel="modulepreload" crossorigin href="/dea/assets/shared.js">
    <link rel="stylesheet" crossorigin href="/dea/assets/login.css">
  </head>
  <body>
    <div id="root"><!--first-paint--><div class="page-start"></div><!--/first-paint--></div>
  </body>
</html>
`;
const PAGE = LOGIN.replace('login.js', 'dea.js')
  .replace('login.css', 'dea.css')
  .replace('</head>', '<link rel="modulepreload" crossorigin href="/dea/assets/page-only.js">\n</head>');

const blockOf = (html: string, id: string): unknown => {
  const json = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(html)?.[1];
  return json === undefined ? undefined : JSON.parse(json);
};

describe.each(DOOR_STORE_KINDS)("the login application's HTML on %s", (kind) => {
  let t: TestApp;
  let webDir: string;
  beforeAll(async () => {
    webDir = mkdtempSync(join(tmpdir(), 'dea-web-'));
    mkdirSync(join(webDir, 'dea'));
    mkdirSync(join(webDir, 'login'));
    writeFileSync(join(webDir, 'dea', 'index.html'), PAGE);
    writeFileSync(join(webDir, 'login', 'index.html'), LOGIN);
    t = await createTestApp(kind, { DEA_WEB_DIR: webDir, DEA_LOGIN_PATH: '/sso/login/' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  const open = (url = '/sso/login/?ep=x', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it("carries what its startup calls answer with nobody signed in, in the browser's language, of the texts only the login application's", async () => {
    for (const [acceptLanguage, messageFile] of [
      ['de-DE,de;q=0.9', 'messages_de'],
      ['xx', 'messages'],
    ] as const) {
      const response = await open('/sso/login/?ep=x', { 'accept-language': acceptLanguage });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.vary).toMatch(/accept-language/i);
      const answers = blockOf(response.body, PAGE_STARTUP_ELEMENT_ID) as PageStartupAnswers;
      const calls: PageCall[] = [
        PAGE_CALLS.languageList(),
        PAGE_CALLS.messages(messageFile),
        PAGE_CALLS.branding(),
      ];
      expect(Object.keys(answers).sort()).toEqual(calls.map(pageCallKey).sort());
      for (const call of calls) {
        const answer = await t.app.inject({
          method: call.method,
          url: `${API}/${call.path}`,
          query: Object.fromEntries(
            Object.entries(call.query ?? {}).filter(([, value]) => value !== undefined),
          ) as Record<string, string>,
          headers: { 'accept-language': acceptLanguage },
          ...(call.method === 'POST' && { payload: call.body as object }),
        });
        expect(answer.statusCode, pageCallKey(call)).toBe(200);
        if (call.path !== PAGE_CALLS.messages(messageFile).path) {
          expect(answers[pageCallKey(call)], pageCallKey(call)).toEqual(answer.json());
          continue;
        }
        // GET message answers the whole catalog; the HTML carries the login application's texts of it.
        const catalog = answer.json<Record<string, string>>();
        expect(Object.keys(catalog).length).toBeGreaterThan(LOGIN_TEXT_KEYS.length * 3);
        const loginTexts = Object.fromEntries(LOGIN_TEXT_KEYS.map((key) => [key, catalog[key]]));
        expect(Object.values(loginTexts).every((text) => typeof text === 'string')).toBe(true);
        expect(answers[pageCallKey(call)], pageCallKey(call)).toEqual(loginTexts);
      }
    }
    expect((await open('/sso/login/index.html')).statusCode).toBe(200);
  });

  it("is sent at brotli's best, compressed once per language and the same bytes each time", async () => {
    for (const acceptLanguage of ['de', 'en']) {
      const plain = await open('/sso/login/', { 'accept-language': acceptLanguage });
      const first = await open('/sso/login/', { 'accept-language': acceptLanguage, 'accept-encoding': 'br' });
      const second = await open('/sso/login/', {
        'accept-language': acceptLanguage,
        'accept-encoding': 'br',
      });
      expect(first.headers['content-encoding']).toBe('br');
      const html = brotliDecompressSync(first.rawPayload).toString();
      expect(html).toBe(plain.body);
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      const quality = (level: number) =>
        brotliCompressSync(html, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: level } }).length;
      expect(first.rawPayload.length).toBe(quality(11));
      expect(first.rawPayload.length).toBeLessThan(quality(5));
    }
  });

  it("names the page's files it does not load itself, for the browser to prefetch once idle", async () => {
    const html = (await open()).body;
    expect(blockOf(html, PAGE_PREFETCH_ELEMENT_ID)).toEqual([
      '/dea/assets/dea.js',
      '/dea/assets/dea.css',
      '/dea/assets/page-only.js',
    ]);
    // As hints in the head the browser would fetch them at once, beside the form's own files.
    expect(html).not.toMatch(/rel="prefetch"/);
  });

  it('is still sent, without answers, when they cannot be read now; it then asks itself', async () => {
    const failing = vi
      .spyOn(t.services.store.branding, 'list')
      .mockRejectedValueOnce(new Error('connection terminated'));
    const response = await open();
    failing.mockRestore();
    expect(response.statusCode).toBe(200);
    expect(blockOf(response.body, PAGE_STARTUP_ELEMENT_ID)).toBeUndefined();
    expect(response.body).toContain(
      '<div id="root"><!--first-paint--><div class="page-start"></div><!--/first-paint--></div>',
    );
  });

  it("paints the spec's loading state in the browser's language before its scripts, fetched behind it", async () => {
    for (const [acceptLanguage, lang, dir] of [
      ['de-DE,de;q=0.9', 'de', 'ltr'],
      ['ar', 'ar', 'rtl'],
      ['xx', 'en', 'ltr'],
    ] as const) {
      const response = await open('/sso/login/?ep=x', { 'accept-language': acceptLanguage });
      const texts = (await t.app.inject({ method: 'GET', url: `${API}/message`, query: { lang } })).json<
        Record<string, string>
      >();
      expect(response.body).toContain(`<html lang="${lang}" dir="${dir}">`);
      expect(response.body).toContain(
        `<h1 class="spinner-label">${texts.loading}</h1></div><p class="loading-custom">${texts.loadingCustom}</p>`,
      );
      expect(response.body).toContain(
        '<script type="module" fetchpriority="low" crossorigin src="/dea/assets/login.js"></script>',
      );
    }
  });
});
