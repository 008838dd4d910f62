import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, gunzipSync } from 'node:zlib';
import {
  PAGE_CALLS,
  PAGE_STARTUP_ELEMENT_ID,
  isPageTextKey,
  messageFileName,
  pageCallKey,
  type PageCall,
  type PageStartupAnswers,
} from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API } from '../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../testing/test-app.js';
import { lowPriorityScripts } from './first-paint.js';
import { jsonForHtml } from './json-for-html.js';
import { PAGE_FILES_ELEMENT_ID, PAGE_WITHOUT_SESSION_SCRIPT } from './page-without-session.js';

const TEMPLATE = `<!doctype html>
<html lang="en">
  <head><script type="module" src="/dea/assets/dea.js"></script></head>
  <body>
    <div id="root"><!--first-paint--><!--/first-paint--></div>
  </body>
</html>
`;

const BLOCK = new RegExp(`<script type="application/json" id="${PAGE_STARTUP_ELEMENT_ID}">([^<]*)</script>`);

/** The startup calls the page makes for a code on screen, with the texts of `messageFile`. */
const startupCalls = (userId: string, messageFile: string): PageCall[] => [
  PAGE_CALLS.userInfo(),
  PAGE_CALLS.languageList(),
  PAGE_CALLS.userLocale(userId),
  PAGE_CALLS.messages(messageFile),
  PAGE_CALLS.branding(),
  PAGE_CALLS.policy(userId),
];

/** The startup answers the page's HTML carries, `undefined` when it carries none. */
function answersIn(html: string): PageStartupAnswers | undefined {
  const json = BLOCK.exec(html)?.[1];
  return json === undefined ? undefined : (JSON.parse(json) as PageStartupAnswers);
}

describe.each(DOOR_STORE_KINDS)("the page's HTML with its startup answers on %s", (kind) => {
  let t: TestApp;
  let webDir: string;
  beforeAll(async () => {
    webDir = mkdtempSync(join(tmpdir(), 'dea-web-'));
    mkdirSync(join(webDir, 'dea'));
    writeFileSync(join(webDir, 'dea', 'index.html'), TEMPLATE);
    t = await createTestApp(kind, { DEA_WEB_DIR: webDir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  const page = (signedIn?: SignedIn, headers: Record<string, string> = {}, url = '/dea/') =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { ...(signedIn && { cookie: signedIn.headers.cookie }), ...headers },
    });

  /** The page's own call, made as the page makes it, with the same headers. */
  const callAsPage = (call: PageCall, signedIn: SignedIn, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: call.method,
      url: `${API}/${call.path}`,
      ...(call.query !== undefined && {
        query: Object.fromEntries(
          Object.entries(call.query).filter(([, value]) => value !== undefined),
        ) as Record<string, string>,
      }),
      headers: { ...signedIn.headers, ...headers },
      ...(call.method === 'POST' && { payload: call.body as object }),
    });

  async function expectFaithful(
    answers: PageStartupAnswers,
    calls: PageCall[],
    signedIn: SignedIn,
    headers: Record<string, string> = {},
  ): Promise<void> {
    expect(Object.keys(answers).sort()).toEqual(calls.map(pageCallKey).sort());
    for (const call of calls) {
      const response: LightMyRequestResponse = await callAsPage(call, signedIn, headers);
      expect(response.statusCode, pageCallKey(call)).toBe(200);
      if (call.path !== PAGE_CALLS.messages('messages').path) {
        expect(answers[pageCallKey(call)], pageCallKey(call)).toEqual(response.json());
        continue;
      }
      // The texts: GET message's whole catalog, cut to those the page shows.
      const whole = response.json<Record<string, string>>();
      const shown = Object.fromEntries(Object.entries(whole).filter(([key]) => isPageTextKey(key)));
      expect(answers[pageCallKey(call)], pageCallKey(call)).toEqual(shown);
      expect(Object.keys(shown).length).toBeLessThan(Object.keys(whole).length);
      expect(shown).toHaveProperty(['content.title']);
    }
  }

  it('carries, for a signed-in user, exactly what each startup call answers, and is never stored', async () => {
    const user = await t.createUser({ locale: 'de' });
    const signedIn = await t.signIn(user);
    const response = await page(signedIn);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    const answers = answersIn(response.body);
    if (answers === undefined) throw new Error('no startup answers in the page');
    // Shown on screen: no channels; the texts of the user's locale; never a code.
    await expectFaithful(answers, startupCalls(user.id, 'messages_de'), signedIn);
    expect(response.body).not.toMatch(/tempPass/);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
    // The block stands before </body>, after the page's own markup.
    expect(response.body.indexOf('id="root"')).toBeLessThan(response.body.indexOf(PAGE_STARTUP_ELEMENT_ID));
    // Before its scripts it paints the spec's loading state in the texts' language (first-paint.ts).
    const texts = answers[pageCallKey(PAGE_CALLS.messages('messages_de'))] as Record<string, string>;
    expect(response.body).toContain('<html lang="de" dir="ltr">');
    expect(response.body).toContain(`<h1 class="spinner-label">${texts.loading}</h1>`);
    expect(response.body.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('answers the channels too when codes go by channel, without a refusal in the audit log', async () => {
    const user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      channels: { mobile: '+49 170 5550112', email: 'chris@example.com' },
    });
    const signedIn = await t.signIn(user);
    const answers = answersIn((await page(signedIn)).body) ?? {};
    await expectFaithful(
      answers,
      [...startupCalls(user.id, 'messages'), PAGE_CALLS.availableChannels(user.id)],
      signedIn,
    );
    expect(JSON.stringify(answers)).not.toMatch(/5550112|chris@example\.com/);
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.refused' })).toEqual([]);
  });

  it('leaves the channels out when codes are not enabled, and audits nothing for it', async () => {
    const user = await t.createUser({
      policy: { enableECode: false, emergencyCodeDelivery: 'Channel' },
      channels: { mobile: '+49 170 5550112' },
    });
    const answers = answersIn((await page(await t.signIn(user))).body) ?? {};
    expect(answers[pageCallKey(PAGE_CALLS.policy(user.id))]).toMatchObject({
      error: 0,
      result: { options: { enableECode: false } },
    });
    expect(answers[pageCallKey(PAGE_CALLS.availableChannels(user.id))]).toBeUndefined();
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.refused' })).toEqual([]);
  });

  it("chooses the texts as the page will: the user's locale, else the browser's language, else English", async () => {
    const messagesKeyOf = (answers: PageStartupAnswers | undefined) =>
      Object.keys(answers ?? {}).filter((key) => key.startsWith('GET message'));
    const unknownLocale = await t.createUser({ locale: 'xx' });
    const signedIn = await t.signIn(unknownLocale);
    const japanese = await page(signedIn, { 'accept-language': 'ja-JP,en;q=0.5' });
    expect(messagesKeyOf(answersIn(japanese.body))).toEqual([
      pageCallKey(PAGE_CALLS.messages(messageFileName('ja'))),
    ]);
    await expectFaithful(
      answersIn(japanese.body) ?? {},
      startupCalls(unknownLocale.id, 'messages_ja'),
      signedIn,
      { 'accept-language': 'ja-JP,en;q=0.5' },
    );
    const neither = await page(signedIn, { 'accept-language': 'xx-YY' });
    expect(messagesKeyOf(answersIn(neither.body))).toEqual(['GET message']);
  });

  it('carries nothing without an active session: none, an unknown one, an expired one', async () => {
    expect(answersIn((await page()).body)).toBeUndefined();
    expect((await page()).statusCode).toBe(200);
    const unknown = await page(undefined, { cookie: 'dea_session=not-a-session' });
    expect(answersIn(unknown.body)).toBeUndefined();
    const user: TestUser = await t.createUser();
    const signedIn = await t.signIn(user);
    expect(answersIn((await page(signedIn)).body)).toBeDefined();
    t.clock.advance(t.services.config.sessionAbsoluteMs + 1);
    const expired = await page(signedIn);
    expect(expired.statusCode).toBe(200);
    expect(answersIn(expired.body)).toBeUndefined();
    expect(expired.body).toContain('<div id="root"><!--first-paint--><!--/first-paint--></div>');
  });

  it('keeps branding HTML and CSS inert: no string can close the data block or open a comment', async () => {
    const hostile = '</script><script>alert(1)</script><!-- \u2028 & > </SCRIPT >';
    const before = (await t.services.store.branding.list()).find((entry) => entry.name === 'footerLeft');
    await t.services.store.branding.set({
      name: 'footerLeft',
      type: 'html',
      value: hostile,
      isDefault: false,
    });
    const signedIn = await t.signIn(await t.createUser());
    const { body } = await page(signedIn);
    expect(body.match(/<\/script/gi)).toHaveLength(2); // the module script's and the block's own
    // The only comments are the built HTML's first-paint markers; none comes from the answers.
    expect(body.match(/<!--/g)).toHaveLength(2);
    expect(BLOCK.exec(body)?.[1]).not.toContain('<!--');
    const branding = answersIn(body)?.[pageCallKey(PAGE_CALLS.branding())] as {
      result: { name: string; value: string }[];
    };
    expect(branding.result.find((entry) => entry.name === 'footerLeft')?.value).toBe(hostile);
    expect(jsonForHtml({ a: '<>&\u2028\u2029' })).toBe('{"a":"\\u003c\\u003e\\u0026\\u2028\\u2029"}');
    if (before) await t.services.store.branding.set(before);
  });

  it('sends the same HTML brotli or gzip compressed as the browser accepts, at /dea/ and /dea/index.html', async () => {
    const signedIn = await t.signIn(await t.createUser());
    const plain = await page(signedIn, { 'accept-encoding': 'identity' });
    const brotli = await page(signedIn, { 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await page(signedIn, { 'accept-encoding': 'gzip' }, '/dea/index.html');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['cache-control']).toBe('no-store');
    // The same answers each time (the session's touch changes nothing the page is told).
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(plain.body);
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    expect(brotli.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    const head = await t.app.inject({
      method: 'HEAD',
      url: '/dea/',
      headers: { cookie: signedIn.headers.cookie },
    });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('is still sent, without answers, when they cannot be read now; the page then asks itself', async () => {
    const signedIn = await t.signIn(await t.createUser());
    const failing = vi
      .spyOn(t.services.store.branding, 'list')
      .mockRejectedValueOnce(new Error('connection terminated'));
    const response = await page(signedIn);
    failing.mockRestore();
    expect(response.statusCode).toBe(200);
    expect(answersIn(response.body)).toBeUndefined();
    expect(response.body).toContain('<div id="root"><!--first-paint--><!--/first-paint--></div>');
  });
});

describe.each(DOOR_STORE_KINDS)("the page's HTML with no session on %s", (kind) => {
  let t: TestApp;
  let webDir: string;
  const template = `<!doctype html>
<html lang="en">
  <head>
    <link rel="icon" href="/dea/assets/logo.svg" />
    <script type="module" crossorigin src="/dea/assets/dea.js"></script>
    <link rel="modulepreload" crossorigin href="/dea/assets/shared.js">
    <link rel="stylesheet" crossorigin href="/dea/assets/dea.css">
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`;
  beforeAll(async () => {
    webDir = mkdtempSync(join(tmpdir(), 'dea-web-'));
    mkdirSync(join(webDir, 'dea'));
    writeFileSync(join(webDir, 'dea', 'index.html'), template);
    t = await createTestApp(kind, { DEA_WEB_DIR: webDir, DEA_LOGIN_PATH: '/sso/login/' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(webDir, { recursive: true, force: true });
  });

  const open = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/dea/', headers });
  const filesBlock = new RegExp(
    `<script type="application/json" id="${PAGE_FILES_ELEMENT_ID}">([^<]*)</script>`,
  );

  it("is sent at brotli's best, compressed once and the same bytes each time (it is the same for everyone)", async () => {
    const plain = await open({ 'accept-encoding': 'identity' });
    const first = await open({ 'accept-encoding': 'br' });
    const second = await open({ 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(first.rawPayload).toString()).toBe(plain.body);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    const quality = (level: number) =>
      brotliCompressSync(plain.body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: level } }).length;
    expect(first.rawPayload.length).toBe(quality(11));
    expect(first.rawPayload.length).toBeLessThan(quality(5));
    const gzip = await open({ 'accept-encoding': 'gzip' });
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
  });

  it("names none of the page's files for the browser to fetch, only for its script to load", async () => {
    for (const cookie of [undefined, 'dea_session=not-a-session']) {
      const response = await open(cookie === undefined ? {} : { cookie });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const html = response.body;
      expect(html).not.toMatch(/(src|href)="\/dea\/assets\/(dea|shared)\./);
      expect(html).toContain('<link rel="icon" href="/dea/assets/logo.svg" />');
      expect(html).toContain('<div id="root"></div>');
      expect(answersIn(html)).toBeUndefined();
      expect(JSON.parse(filesBlock.exec(html)?.[1] ?? 'null')).toEqual({
        loginPath: '/sso/login/',
        files: [
          { tag: 'script', attributes: { type: 'module', crossorigin: '', src: '/dea/assets/dea.js' } },
          {
            tag: 'link',
            attributes: { rel: 'modulepreload', crossorigin: '', href: '/dea/assets/shared.js' },
          },
          { tag: 'link', attributes: { rel: 'stylesheet', crossorigin: '', href: '/dea/assets/dea.css' } },
        ],
      });
      // Its one inline script runs: the policy allows exactly that script by its hash.
      expect(html).toContain(`<script>${PAGE_WITHOUT_SESSION_SCRIPT}</script>`);
      const digest = createHash('sha256').update(PAGE_WITHOUT_SESSION_SCRIPT).digest('base64');
      expect(response.headers['content-security-policy']).toContain(`script-src 'self' 'sha256-${digest}'`);
    }
  });

  it('is the page as built for a signed-in user (with its answers) and for an expired session (401, logout)', async () => {
    const signedIn = await t.signIn(await t.createUser());
    const active = await open({ cookie: String(signedIn.headers.cookie) });
    // Its scripts are fetched behind what the first paint needs (first-paint.ts).
    expect(active.body).toContain(
      '<script type="module" fetchpriority="low" crossorigin src="/dea/assets/dea.js"></script>',
    );
    expect(active.body).not.toContain(PAGE_FILES_ELEMENT_ID);
    expect(answersIn(active.body)).toBeDefined();
    t.clock.advance(t.services.config.sessionAbsoluteMs + 1);
    const expired = await open({ cookie: String(signedIn.headers.cookie) });
    expect(expired.body).toBe(lowPriorityScripts(template));
    const userInfo = await t.app.inject({
      method: 'POST',
      url: `${API}/userinfo`,
      headers: signedIn.headers,
      payload: {},
    });
    expect(userInfo.statusCode).toBe(401);
  });
});
