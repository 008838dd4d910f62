import { BRANDING_NAMES, type BrandingType } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { ensureBuiltInContent } from '../../seed/built-in-content.js';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { RuleError } from '../rule-error.js';
import {
  brandingEntries,
  brandingValueProblem,
  MAX_BRANDING_VALUE_BYTES,
  resetBranding,
  setBranding,
} from './branding-rules.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const LOGO = 'data:image/png;base64,iVBORw0KGgo=';

describe("a branding entry's value", () => {
  it('is at most 512 KiB, counted in bytes', () => {
    expect(brandingValueProblem('html', 'x'.repeat(MAX_BRANDING_VALUE_BYTES))).toBeUndefined();
    expect(brandingValueProblem('html', 'x'.repeat(MAX_BRANDING_VALUE_BYTES + 1))).toBe(
      'is larger than 512 KiB',
    );
    // Half as many characters of two bytes each are as large.
    expect(brandingValueProblem('text', 'é'.repeat(MAX_BRANDING_VALUE_BYTES / 2 + 1))).toBe(
      'is larger than 512 KiB',
    );
  });

  it('of an image is empty, an http(s) address or a data URL of an image', () => {
    for (const value of [
      '',
      LOGO,
      'https://cdn.example.com/logo.svg',
      'http://intranet/logo.png',
      ' data:image/svg+xml,<svg/> ',
    ])
      expect(brandingValueProblem('image', value), value).toBeUndefined();
    for (const value of [
      'javascript:alert(1)',
      'data:text/html,<script>',
      'ftp://example.com/logo.png',
      'logo.png',
    ])
      expect(brandingValueProblem('image', value), value).toBe(
        'of an image must be an http(s) URL or a data:image URL',
      );
    // Any other type holds what it is given.
    expect(brandingValueProblem('css', 'javascript:alert(1)')).toBeUndefined();
  });

  it('is of one of the four types', () => {
    expect(brandingValueProblem('script' as BrandingType, '')).toBe(
      'type must be one of text, html, css, image',
    );
  });
});

describe.each(STORE_KINDS)('branding set and reset on %s', (kind) => {
  storeTest.override('storeKind', kind);

  /** The store with the product's default entries, as every start leaves it. */
  async function branded(store: Store) {
    await ensureBuiltInContent(store);
    const entries = () => store.audit.list({ limit: 100 });
    return { entries };
  }

  storeTest.concurrent(
    'every entry is listed in its order, the default where none is set',
    async ({ testStore: { store }, expect }) => {
      await branded(store);
      const listed = await brandingEntries(store);
      expect(listed.map((entry) => entry.name)).toEqual(BRANDING_NAMES);
      expect(listed.every((entry) => entry.isDefault && entry.value === '')).toBe(true);
    },
  );

  storeTest.concurrent(
    'a value set is stored under its type and audited with who set it and its size, not its content',
    async ({ testStore: { store }, expect }) => {
      const { entries } = await branded(store);
      const footer = '<a href="https://intranet.example.com/help">Help</a>';
      expect(await setBranding(store, { name: 'footerLeft', value: footer }, 'console:admin', T0)).toEqual({
        name: 'footerLeft',
        type: 'html',
        value: footer,
        isDefault: false,
      });
      expect((await brandingEntries(store)).find((entry) => entry.name === 'footerLeft')).toMatchObject({
        value: footer,
        isDefault: false,
      });
      expect(await entries()).toMatchObject([
        {
          event: 'branding.set',
          actor: 'console:admin',
          details: { name: 'footerLeft', type: 'html', bytes: footer.length },
        },
      ]);
      expect(JSON.stringify(await entries())).not.toContain('intranet.example.com');
    },
  );

  storeTest.concurrent(
    'a value its type refuses is a rule error that stores and audits nothing',
    async ({ testStore: { store }, expect }) => {
      const { entries } = await branded(store);
      const outcome = setBranding(store, { name: 'headerLeft', value: 'javascript:alert(1)' }, 'cli', T0);
      await expect(outcome).rejects.toBeInstanceOf(RuleError);
      await expect(outcome).rejects.toThrow(
        'the value of an image must be an http(s) URL or a data:image URL',
      );
      await expect(
        setBranding(store, { name: 'CSS', value: 'x'.repeat(MAX_BRANDING_VALUE_BYTES + 1) }, 'cli', T0),
      ).rejects.toThrow('the value is larger than 512 KiB');
      expect((await brandingEntries(store)).filter((entry) => !entry.isDefault)).toEqual([]);
      expect(await entries()).toEqual([]);
    },
  );

  storeTest.concurrent(
    "a type given with the value is checked as that type's",
    async ({ testStore: { store }, expect }) => {
      await branded(store);
      await expect(
        setBranding(store, { name: 'headerMiddle', type: 'image', value: 'not an image' }, 'cli', T0),
      ).rejects.toThrow(/must be an http\(s\) URL/);
      expect(
        await setBranding(store, { name: 'headerMiddle', type: 'image', value: LOGO }, 'cli', T0),
      ).toMatchObject({
        type: 'image',
      });
    },
  );

  storeTest.concurrent(
    "reset puts the product's default back, audited",
    async ({ testStore: { store }, expect }) => {
      const { entries } = await branded(store);
      await setBranding(store, { name: 'backgroundImage', value: LOGO }, 'cli', T0);
      await resetBranding(store, 'backgroundImage', 'console:admin', T0 + 1);
      expect((await brandingEntries(store)).find((entry) => entry.name === 'backgroundImage')).toEqual({
        name: 'backgroundImage',
        type: 'image',
        value: '',
        isDefault: true,
      });
      expect((await entries()).map(({ event, actor, details }) => [event, actor, details])).toEqual([
        ['branding.reset', 'console:admin', { name: 'backgroundImage' }],
        ['branding.set', 'cli', { name: 'backgroundImage', type: 'image', bytes: LOGO.length }],
      ]);
    },
  );
});
