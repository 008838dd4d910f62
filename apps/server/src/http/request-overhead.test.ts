import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createLogger, isoTimeByMillisecond, requestLineLoggerOf } from '../logging.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';
import { isScriptOrStyleSheet, securityHeaderSets } from './security-headers.js';

/** What every request pays before its use case: computed once, never per request. */
describe('the cost of a request before the use case', () => {
  it('computes the headers of each kind of answer once, the image origins and inline scripts in the policy', () => {
    const sets = securityHeaderSets(['https://cdn.example.com'], ["'sha256-c2NyaXB0'"]);
    const document = new Map(sets.document);
    expect(document.get('content-security-policy')).toContain(
      "img-src 'self' data: https://cdn.example.com;",
    );
    expect(document.get('content-security-policy')).toContain("script-src 'self' 'sha256-c2NyaXB0';");
    expect(document.get('x-frame-options')).toBe('DENY');
    expect(document.get('permissions-policy')).toMatch(/(^|, )camera=\(\)/);
    expect(document.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(document.get('x-content-type-options')).toBe('nosniff');
    expect(document.get('referrer-policy')).toBe('same-origin');
    expect(new Map(sets.scriptOrStyleSheet)).toEqual(
      new Map([
        ['x-content-type-options', 'nosniff'],
        ['referrer-policy', 'same-origin'],
      ]),
    );
    expect(new Map(sets.jsonAnswer)).toEqual(
      new Map([
        ['x-content-type-options', 'nosniff'],
        ['referrer-policy', 'same-origin'],
        ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
        ['x-frame-options', 'DENY'],
      ]),
    );
    expect(sets.tls).toEqual([['strict-transport-security', 'max-age=31536000']]);
    // Frozen: no answer can change what the next one sends.
    expect(Object.isFrozen(sets.document)).toBe(true);
  });

  it.each([
    ['/dea/assets/index-abc.js', true],
    ['/dea/assets/index-abc.css', true],
    ['/dea/assets/index-abc.js?v=1', true],
    ['/dea/assets/index-abc.css#x', true],
    ['/dea/assets/x.js.map', false],
    ['/dea/assets/logo.svg', false],
    ['/dea/assets/x.svg?.js', false],
    ['/dea/assets/x.svg#.css', false],
    ['/dea/api/userinfo', false],
    ['/dea/x.js', false],
    ['/admin/assets/x.js', false],
  ])('tells %s a script or style sheet: %s', (url, expected) => {
    expect(isScriptOrStyleSheet(url)).toBe(expected);
  });

  it("writes the log line's time as pino's isoTime does, formatted once per millisecond", () => {
    let now = Date.parse('2026-11-27T00:10:00.123Z');
    const time = isoTimeByMillisecond(() => now);
    const first = time();
    expect(first).toBe(',"time":"2026-11-27T00:10:00.123Z"');
    expect(time()).toBe(first);
    now += 1;
    expect(time()).toBe(',"time":"2026-11-27T00:10:00.124Z"');
    // The same form as pino's own function gives.
    expect(pino.stdTimeFunctions.isoTime().replace(/"[^"]*"$/, '""')).toBe(time().replace(/"[^"]*"$/, '""'));
  });

  it("writes each request's one line with its fields in order, and a failure still through the redaction", async () => {
    const t = await createTestApp('sqlite');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    expect(requestLineLoggerOf(logger)).toBeDefined();
    const app = await buildApp({ services: t.services, logger });
    try {
      await app.inject({
        method: 'GET',
        url: '/healthz?code=123456',
        headers: { 'x-request-id': 'request-0001' },
      });
      const line = JSON.parse(lines.find((each) => each.includes('"request completed"')) ?? '{}') as Record<
        string,
        unknown
      >;
      expect(Object.keys(line)).toEqual([
        'level',
        'time',
        'service',
        'reqId',
        'method',
        'path',
        'statusCode',
        'responseTime',
        'remoteAddress',
        'msg',
      ]);
      expect(line).toMatchObject({
        level: 30,
        service: 'dea',
        reqId: 'request-0001',
        method: 'GET',
        path: '/healthz',
        statusCode: 200,
      });
      expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // Any other line of a request goes through the redaction, as before.
      app.log
        .child({ reqId: 'request-0002' })
        .info({ code: '123456', body: { password: 'secret' } }, 'other');
      const other = lines.find((each) => each.includes('"other"')) ?? '';
      expect(other).not.toContain('123456');
      expect(other).not.toContain('secret');
    } finally {
      await app.close();
      await t.close();
    }
  });

  describe('an unknown call under /dea/api/ with the page built', () => {
    let t: TestApp;
    let webDir: string;
    beforeAll(async () => {
      webDir = mkdtempSync(join(tmpdir(), 'dea-web-'));
      mkdirSync(join(webDir, 'dea', 'api'), { recursive: true });
      writeFileSync(
        join(webDir, 'dea', 'index.html'),
        '<!doctype html><html><head><title>page</title></head><body></body></html>',
      );
      // A file that would be served from the page's folder if the API's paths were looked up there.
      writeFileSync(join(webDir, 'dea', 'api', 'leftover.json'), '{"found":true}');
      t = await createTestApp('sqlite', { DEA_WEB_DIR: webDir });
    });
    afterAll(async () => {
      await t?.close();
      rmSync(webDir, { recursive: true, force: true });
    });

    it('is answered 404 in the envelope at once, never from the files of the page', async () => {
      for (const url of ['/dea/api/leftover.json', '/dea/api/nothing-here', '/dea/api/a/b?c=d']) {
        const answer = await t.app.inject({
          method: 'GET',
          url,
          headers: { 'accept-encoding': 'gzip, deflate, br' },
        });
        expect(answer.statusCode, url).toBe(404);
        expect(answer.json(), url).toMatchObject({ error: 2 });
        expect(answer.headers['cache-control'], url).toBe('no-store');
        expect(answer.headers['x-frame-options'], url).toBe('DENY');
      }
      // The API's own GET calls and the page are still found.
      expect(
        (await t.app.inject({ method: 'GET', url: '/dea/api/resourceFile/getLanguageList' })).statusCode,
      ).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/dea/api/docs/json' })).statusCode).toBe(200);
    });
  });
});
