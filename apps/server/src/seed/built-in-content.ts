import { createHash } from 'node:crypto';
import { BRANDING_NAMES, BRANDING_TYPE_OF, BUILT_IN_LANGUAGES } from '@dea/contract';
import { BUILT_IN_CATALOGS } from '../i18n/built-in-catalogs.js';
import type { Store } from '../store/store.js';

const CATALOG_HASH_KEY = 'built-in-catalogs.sha256';

/**
 * Puts what the product ships into the store: languages, message catalogs and one branding entry
 * of every known name (set to the built-in default). Texts and entries an operator changed are
 * kept; keys a new release adds are filled in. Skipped when nothing changed since the last start.
 */
export async function ensureBuiltInContent(store: Store): Promise<void> {
  await store.branding.ensure(
    BRANDING_NAMES.map((name) => ({ name, type: BRANDING_TYPE_OF[name], value: '', isDefault: true })),
  );
  const hash = createHash('sha256').update(JSON.stringify(BUILT_IN_CATALOGS)).digest('hex');
  if ((await store.meta.get(CATALOG_HASH_KEY)) === hash) return;
  const existing = new Set((await store.catalogs.listLanguages()).map((row) => row.code));
  for (const { languageCode, languageName } of BUILT_IN_LANGUAGES) {
    if (!existing.has(languageCode)) await store.catalogs.setLanguage(languageCode, languageName);
    await store.catalogs.putMessages(languageCode, BUILT_IN_CATALOGS[languageCode], { overwrite: false });
  }
  await store.meta.set(CATALOG_HASH_KEY, hash);
}
