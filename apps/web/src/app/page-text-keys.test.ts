import { TEXT_GROUPS_NOT_ON_THE_PAGE, isPageTextKey, isTextKey } from '@dea/contract';
import { describe, expect, it } from 'vitest';

/** The web application's sources by their path under src/ ('/src/app/app.tsx'). */
const HERE = 'file:///src/app/';
const SOURCES = new Map(
  Object.entries(
    import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
  ).map(([path, text]) => [new URL(path, HERE).pathname, text]),
);

/** The source a relative import names (`./x` as x.ts, x.tsx or x/index.*), undefined for others. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = new URL(specifier, `file://${from}`).pathname;
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base].find(
    (path) => /\.tsx?$/.test(path) && SOURCES.has(path),
  );
}

/** Every source the page's start (entries/dea/main.tsx calls it) imports, directly or not. */
function pageSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const pending = ['/src/app/start-page.tsx'];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const text = SOURCES.get(path);
    if (text === undefined || sources.has(path)) continue;
    sources.set(path, text);
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const imported = resolveImport(path, match[1] ?? '');
      if (imported !== undefined) pending.push(imported);
    }
  }
  return sources;
}

describe("the page's texts (its HTML carries none of TEXT_GROUPS_NOT_ON_THE_PAGE)", () => {
  const sources = pageSources();

  it('reads the files of the page, its code, its header, its logout landing and its startup failure', () => {
    expect([...sources.keys()]).toEqual(
      expect.arrayContaining([
        '/src/app/main-page.tsx',
        '/src/app/startup-failure.tsx',
        '/src/features/emergency-code/components/code-panel.tsx',
        '/src/features/logout-landing/components/logout-landing-page.tsx',
        '/src/features/language/hooks/use-page-language.ts',
      ]),
    );
  });

  it('uses no text key of those groups, not even one put together at run time', () => {
    const used = new Map<string, string>();
    const builtAtRunTime = new Map<string, string>();
    for (const [file, text] of sources) {
      // t('key'), t("key", …) and a PageMessage's { key: 'key' }; every quoted text key besides.
      for (const match of text.matchAll(/['"]([a-zA-Z]+(?:\.[\w]+)+)['"]/g))
        if (isTextKey(match[1] ?? '')) used.set(match[1] ?? '', file);
      // t(`content.channel.${group}`): its fixed start decides its group.
      for (const match of text.matchAll(/(?:\bt\(\s*|\bkey:\s*)`([\w.]*)\$\{/g))
        builtAtRunTime.set(match[1] ?? '', file);
    }
    expect(used.size).toBeGreaterThan(30);
    const notCarried = [...used, ...builtAtRunTime]
      .filter(
        ([key]) => !isPageTextKey(key) || TEXT_GROUPS_NOT_ON_THE_PAGE.some((group) => group.startsWith(key)),
      )
      .map(([key, file]) => `${key} (${file})`);
    expect(notCarried).toEqual([]);
  });
});
