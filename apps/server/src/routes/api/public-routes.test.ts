import {
  BRANDING_NAMES,
  BRANDING_TYPE_OF,
  BUILT_IN_LANGUAGES,
  BrandingList,
  Envelope,
  LanguageList,
  MessageDictionary,
  TEXT_KEYS,
} from '@dea/contract';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_CATALOGS } from '../../i18n/built-in-catalogs.js';
import { API } from '../../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';

describe.each(DOOR_STORE_KINDS)('public calls on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('GET resourceFile/getLanguageList answers the 11 built-in languages in the envelope, without a session', async () => {
    const response = await get(`${API}/resourceFile/getLanguageList`);
    expect(response.statusCode).toBe(200);
    const envelope = response.json<{ error: number; message: string; result: unknown }>();
    expect(envelope).toMatchObject({ error: 0, message: '' });
    const body = envelope.result;
    expect(Value.Check(LanguageList, body)).toBe(true);
    expect(body).toHaveLength(11);
    expect(new Set(body as unknown[])).toEqual(
      new Set(BUILT_IN_LANGUAGES.map((language) => ({ ...language }))),
    );
    // Every answer carries the security headers; a JSON answer the short policy of one that is
    // never a page: nothing loads or runs in it, nothing frames it (http/security-headers.ts).
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers['permissions-policy']).toBeUndefined();
  });

  it('POST customizationConfig/getCurrentConfig answers every known branding name from the store', async () => {
    const response = await t.call(`${API}/customizationConfig/getCurrentConfig`, {});
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      error: number;
      result: { name: string; type: string; isDefault: boolean }[];
    }>();
    expect(Value.Check(Envelope(BrandingList), body)).toBe(true);
    expect(body.error).toBe(0);
    expect(body.result.map((entry) => entry.name).sort()).toEqual([...BRANDING_NAMES].sort());
    for (const entry of body.result) {
      expect(entry.type).toBe(BRANDING_TYPE_OF[entry.name as (typeof BRANDING_NAMES)[number]]);
      expect(entry.isDefault).toBe(true);
    }
  });

  it("answers an operator's branding value and leaves out names the page does not know", async () => {
    await t.services.store.branding.set({
      name: 'htmlTitle',
      type: 'text',
      value: 'ACME access',
      isDefault: false,
    });
    await t.services.store.branding.set({
      name: 'somethingElse',
      type: 'text',
      value: 'x',
      isDefault: false,
    });
    const response = await t.call(`${API}/customizationConfig/getCurrentConfig`, undefined);
    const body = response.json<{ result: { name: string; value: string; isDefault: boolean }[] }>();
    expect(body.result.find((entry) => entry.name === 'htmlTitle')).toEqual({
      name: 'htmlTitle',
      type: 'text',
      value: 'ACME access',
      isDefault: false,
    });
    expect(body.result.map((entry) => entry.name)).not.toContain('somethingElse');
    expect(body.result).toHaveLength(BRANDING_NAMES.length);
  });

  it('GET message?lang=de answers the complete German dictionary', async () => {
    const response = await get(`${API}/message?lang=de`);
    expect(response.statusCode).toBe(200);
    const body = response.json<Record<string, string>>();
    expect(Value.Check(MessageDictionary, body)).toBe(true);
    expect(Object.keys(body).sort()).toEqual([...TEXT_KEYS].sort());
    expect(body['content.title']).toBe('Notfallzugang');
    expect(body).toEqual(BUILT_IN_CATALOGS.de);
    expect(response.headers['content-language']).toBe('de');
  });

  it('GET message without lang answers English, the server default', async () => {
    const response = await get(`${API}/message`);
    expect(response.json()).toEqual(BUILT_IN_CATALOGS.en);
    expect(response.headers['content-language']).toBe('en');
  });

  it('GET message?lang=pt_BR falls back to Portuguese, an unknown language to English', async () => {
    expect((await get(`${API}/message?lang=pt_BR`)).json()).toEqual(BUILT_IN_CATALOGS.pt);
    expect((await get(`${API}/message?lang=zh-Hans`)).json()).toEqual(BUILT_IN_CATALOGS.zh);
    expect((await get(`${API}/message?lang=sv`)).json()).toEqual(BUILT_IN_CATALOGS.en);
  });

  it('GET message refuses a lang that is not a language code (HTTP 400, error 2)', async () => {
    for (const lang of ['../etc', 'de;x', 'x'.repeat(40)]) {
      const response = await get(`${API}/message?lang=${encodeURIComponent(lang)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 2, result: null });
    }
    const extra = await get(`${API}/message?lang=de&debug=1`);
    expect(extra.statusCode).toBe(400);
  });

  it('answers an unknown API path with 404 and the envelope', async () => {
    const response = await t.call(`${API}/no/such/call`, {});
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 2, result: null });
  });
});
