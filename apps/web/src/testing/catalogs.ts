import type { Catalog } from '@dea/contract';

/**
 * The product's catalogs as the server ships them (apps/server/src/i18n/catalogs/), for the
 * tests of screens whose texts are the real ones (the console's): read here, by tests only, since
 * the browser's code gets them from the server (GET message).
 */
const files = import.meta.glob<{ default: Catalog }>('../../../server/src/i18n/catalogs/*.json', {
  eager: true,
});

export const SHIPPED_CATALOGS: Readonly<Record<string, Catalog>> = Object.fromEntries(
  Object.entries(files).map(([file, catalog]) => [/(\w+)\.json$/.exec(file)?.[1] ?? file, catalog.default]),
);

/** A shipped catalog ('en', 'ar', ...). */
export function shippedCatalog(languageCode: string): Catalog {
  const catalog = SHIPPED_CATALOGS[languageCode];
  if (catalog === undefined) throw new Error(`No catalog of '${languageCode}' is shipped`);
  return catalog;
}
