import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

const WEB_DIR = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** The one multi-page web build: both pages load their modules from /dea/assets/, shared. */
describe('the built page and login application', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_WEB_DIR: WEB_DIR, DEA_LOGIN_PATH: '/sso/auth/' });
  });
  afterAll(() => t.close());

  /** The page as a signed-in user gets it (without a session its files are not in its tags). */
  const pageAsSignedIn = async () =>
    t.app.inject({
      method: 'GET',
      url: '/dea/',
      headers: { cookie: String((await t.signIn(await t.createUser())).headers.cookie) },
    });

  const assetsOf = (html: string) =>
    [...html.matchAll(/(?:src|href)="(\/dea\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');

  it('serves the login application at any DEA_LOGIN_PATH with the same shared chunk as the page, cached for a year', async () => {
    const login = await t.app.inject({ method: 'GET', url: '/sso/auth/' });
    const page = await pageAsSignedIn();
    expect(login.statusCode).toBe(200);
    // Its HTML carries its startup answers (login-html-route.ts): sent anew each time.
    expect(login.headers['cache-control']).toBe('no-store');
    const loginAssets = assetsOf(login.body);
    const pageAssets = assetsOf(page.body);
    const shared = loginAssets.filter((asset) => pageAssets.includes(asset));
    expect(shared.some((asset) => /\/shared-[\w-]+\.js$/.test(asset))).toBe(true);
    for (const asset of loginAssets) {
      const answer = await t.app.inject({ method: 'GET', url: asset });
      expect(answer.statusCode, asset).toBe(200);
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  /**
   * What a phone downloads before the login form or the page can be used (the budget of
   * 100 KB for the whole journey): the scripts and styles their HTML names, as brotli sends them. A
   * module of the contract that builds TypeBox schemas, pulled in by one constant, once added 68 KB.
   */
  it("keeps the login form's, the page's and the channels page's files under 85 KB as sent (brotli)", async () => {
    const login = await t.app.inject({ method: 'GET', url: '/sso/auth/' });
    const page = await pageAsSignedIn();
    const channels = await t.app.inject({ method: 'GET', url: '/dea/channels/' });
    for (const [name, html] of [
      ['login form', login.body],
      ['page', page.body],
      ['channels page', channels.body],
    ] as const) {
      let bytes = 0;
      for (const asset of assetsOf(html).filter((file) => /\.(js|css)$/.test(file))) {
        const answer = await t.app.inject({
          method: 'GET',
          url: asset,
          headers: { 'accept-encoding': 'br' },
        });
        bytes += answer.rawPayload.length;
      }
      expect(bytes, name).toBeGreaterThan(10_000);
      expect(bytes, name).toBeLessThanOrEqual(85 * 1024);
    }
  });

  /** The channels page: its own entry of the build, in the page's folder, sharing its chunks. */
  it('serves the channels page at /dea/channels/ beside the page, with the chunks the page shares, revalidated on each visit', async () => {
    const channels = await t.app.inject({ method: 'GET', url: '/dea/channels/' });
    expect(channels.statusCode).toBe(200);
    expect(channels.headers['content-type']).toMatch(/^text\/html/);
    expect(channels.headers['cache-control']).toBe('no-cache');
    const assets = assetsOf(channels.body);
    expect(assets.some((asset) => /\/channels-[\w-]+\.js$/.test(asset))).toBe(true);
    const pageAssets = assetsOf((await pageAsSignedIn()).body);
    expect(assets.some((asset) => pageAssets.includes(asset) && /shared-/.test(asset))).toBe(true);
    for (const asset of assets) {
      const answer = await t.app.inject({ method: 'GET', url: asset });
      expect(answer.statusCode, asset).toBe(200);
    }
  });

  it('sends each script brotli or gzip compressed as the browser accepts, from the build, and no icon file', async () => {
    const page = await pageAsSignedIn();
    // The page's HTML may carry the signed-in user's startup answers (page-html-route.ts).
    expect(page.headers['cache-control']).toBe('no-store');
    const script = assetsOf(page.body).find((asset) => /\/shared-[\w-]+\.js$/.test(asset)) ?? '';
    const plain = await t.app.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'identity' },
    });
    const brotli = await t.app.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    const gzip = await t.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    for (const answer of [brotli, gzip]) {
      expect(answer.headers.vary).toMatch(/accept-encoding/i);
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(answer.headers['content-type']).toMatch(/javascript/);
    }
    expect(brotliDecompressSync(brotli.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(gunzipSync(gzip.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(brotli.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);

    // No HTML names an icon file: the tab's icon is a data: URL each app sets as it starts
    // (apps/web/src/shared/product-icon.ts), one request less on a cold visit.
    for (const url of ['/dea/', '/sso/auth/']) {
      const html = (await t.app.inject({ method: 'GET', url })).body;
      expect(html, url).not.toMatch(/<link rel="icon"/);
    }
  });

  it('sends the hashed files without validators or ranges (never revalidated: a new build names them anew), the HTML files with them', async () => {
    const page = await pageAsSignedIn();
    const files = assetsOf(page.body);
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const answer = await t.app.inject({ method: 'GET', url: file, headers: { 'accept-encoding': 'br' } });
      expect(answer.statusCode, file).toBe(200);
      expect(answer.headers['cache-control'], file).toBe('public, max-age=31536000, immutable');
      for (const header of ['etag', 'last-modified', 'accept-ranges'])
        expect(answer.headers[header], `${file} ${header}`).toBeUndefined();
    }
    // The channels page's HTML, not hashed, is revalidated on each visit.
    const channels = await t.app.inject({ method: 'GET', url: '/dea/channels/' });
    expect(channels.headers.etag).toBeDefined();
    // A script of a few hundred bytes is sent compressed too (apps/web/scripts/precompress.mjs).
    const small = readdirSync(join(WEB_DIR, 'dea', 'assets')).find(
      (file) => file.endsWith('.js') && statSync(join(WEB_DIR, 'dea', 'assets', file)).size < 1024,
    );
    expect(small).toBeDefined();
    const answer = await t.app.inject({
      method: 'GET',
      url: `/dea/assets/${small}`,
      headers: { 'accept-encoding': 'br' },
    });
    expect(answer.headers['content-encoding']).toBe('br');
    expect((await t.app.inject({ method: 'GET', url: '/dea/assets/missing.js' })).statusCode).toBe(404);
  });

  it("sends the page's scripts and style sheets without the headers only a document heeds; the rest with all", async () => {
    const page = await pageAsSignedIn();
    const files = assetsOf(page.body).filter((asset) => /\.(js|css)$/.test(asset));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const answer = await t.app.inject({ method: 'GET', url: file, headers: { 'accept-encoding': 'br' } });
      expect(answer.statusCode, file).toBe(200);
      expect(answer.headers['x-content-type-options'], file).toBe('nosniff');
      expect(answer.headers['referrer-policy'], file).toBe('same-origin');
      for (const header of [
        'content-security-policy',
        'permissions-policy',
        'x-frame-options',
        'cross-origin-opener-policy',
      ])
        expect(answer.headers[header], `${file} ${header}`).toBeUndefined();
    }
    for (const url of ['/dea/', '/sso/auth/', '/dea/channels/']) {
      const answer = await t.app.inject({ method: 'GET', url });
      expect(answer.headers['content-security-policy'], url).toContain("default-src 'self'");
      expect(answer.headers['x-frame-options'], url).toBe('DENY');
      expect(answer.headers['permissions-policy'], url).toMatch(/camera=\(\)/);
      expect(answer.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
    // A JSON answer (an API call's, a missing file's 404) is never a page: its own short policy,
    // framing refused, no document-only headers (some 420 bytes a call on a slow phone).
    for (const url of ['/dea/api/resourceFile/getLanguageList', '/dea/assets/x.js.map']) {
      const answer = await t.app.inject({ method: 'GET', url });
      expect(answer.headers['content-type'], url).toMatch(/^application\/json/);
      expect(answer.headers['content-security-policy'], url).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
      expect(answer.headers['x-frame-options'], url).toBe('DENY');
      expect(answer.headers['x-content-type-options'], url).toBe('nosniff');
      for (const header of ['permissions-policy', 'cross-origin-opener-policy'])
        expect(answer.headers[header], `${url} ${header}`).toBeUndefined();
    }
  });
});
