import { fileURLToPath } from 'node:url';
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

  const assetsOf = (html: string) =>
    [...html.matchAll(/(?:src|href)="(\/dea\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');

  it('serves the login application at any DEA_LOGIN_PATH with the same shared chunk as the page, cached for a year', async () => {
    const login = await t.app.inject({ method: 'GET', url: '/sso/auth/' });
    const page = await t.app.inject({ method: 'GET', url: '/dea/' });
    expect(login.statusCode).toBe(200);
    expect(login.headers['cache-control']).toBe('no-cache');
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
});
