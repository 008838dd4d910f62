import type { BrandingEntry } from '@dea/contract';
import { describe } from 'vitest';
import { storeCase } from './store-fixture.js';

/** Branding entries. */
export function brandingSuite(): void {
  describe.concurrent('branding', () => {
    const defaults: BrandingEntry[] = [
      { name: 'title', type: 'text', value: 'Emergency Access', isDefault: true },
      { name: 'logo', type: 'image', value: 'data:image/png;base64,AAAA', isDefault: true },
      { name: 'style', type: 'css', value: 'body { color: black; }', isDefault: true },
    ];
    const byName = (entries: BrandingEntry[]): BrandingEntry[] =>
      [...entries].sort((a, b) => (a.name < b.name ? -1 : 1));

    storeCase('adds missing entries and keeps what an operator changed', async ({ store, expect }) => {
      expect(await store.branding.list()).toEqual([]);
      await store.branding.ensure(defaults);
      expect(await store.branding.list()).toEqual(byName(defaults));

      const changed: BrandingEntry = { name: 'title', type: 'text', value: 'Our Access', isDefault: false };
      await store.branding.set(changed);

      const footer: BrandingEntry = { name: 'footer', type: 'html', value: '<p>Help</p>', isDefault: true };
      await store.branding.ensure([...defaults, footer]);
      expect(await store.branding.list()).toEqual(byName([changed, defaults[1]!, defaults[2]!, footer]));

      await expect(store.branding.ensure([])).resolves.toBeUndefined();
      expect(await store.branding.list()).toHaveLength(4);
    });

    storeCase('upserts on set', async ({ store, expect }) => {
      const entry: BrandingEntry = { name: 'notice', type: 'html', value: '<b>1</b>', isDefault: false };
      await store.branding.set(entry);
      expect(await store.branding.list()).toEqual([entry]);
      const replaced: BrandingEntry = { name: 'notice', type: 'text', value: 'plain', isDefault: true };
      await store.branding.set(replaced);
      expect(await store.branding.list()).toEqual([replaced]);
    });
  });
}
