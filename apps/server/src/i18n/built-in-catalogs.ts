import type { BUILT_IN_LANGUAGES, Catalog } from '@dea/contract';
import ar from './catalogs/ar.json' with { type: 'json' };
import de from './catalogs/de.json' with { type: 'json' };
import en from './catalogs/en.json' with { type: 'json' };
import es from './catalogs/es.json' with { type: 'json' };
import fr from './catalogs/fr.json' with { type: 'json' };
import it from './catalogs/it.json' with { type: 'json' };
import ja from './catalogs/ja.json' with { type: 'json' };
import nl from './catalogs/nl.json' with { type: 'json' };
import pl from './catalogs/pl.json' with { type: 'json' };
import pt from './catalogs/pt.json' with { type: 'json' };
import zh from './catalogs/zh.json' with { type: 'json' };

type BuiltInCode = (typeof BUILT_IN_LANGUAGES)[number]['languageCode'];

/** The catalogs the product ships; a test holds each to the full key list of the contract. */
export const BUILT_IN_CATALOGS: Record<BuiltInCode, Catalog> = { en, de, fr, es, it, nl, pt, pl, ja, zh, ar };
