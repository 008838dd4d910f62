import { DEFAULT_LANGUAGE } from '@dea/contract';

/**
 * The first candidate the product has a catalog for: exact code first ('pt_BR'), then its
 * primary part ('pt'); English when none matches.
 */
export function chooseLanguage(
  candidates: readonly (string | null | undefined)[],
  available: readonly string[],
): string {
  const lowerToCode = new Map(available.map((code) => [code.toLowerCase(), code]));
  for (const candidate of candidates) {
    if (!candidate) continue;
    const normalized = candidate.trim().replace('-', '_').toLowerCase();
    const exact = lowerToCode.get(normalized);
    if (exact) return exact;
    const primary = lowerToCode.get(normalized.split('_')[0] ?? '');
    if (primary) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/** Languages of an Accept-Language header, most preferred first. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}
