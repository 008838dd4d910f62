import { LOGIN_TEXT_KEYS, isTextKey } from '@dea/contract';
import { describe, expect, it } from 'vitest';

/** The web application's sources by their path under src/ ('/src/login-app/login-app.tsx'). */
const HERE = 'file:///src/login-app/';
const SOURCES = new Map(
  Object.entries(
    import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
  ).map(([path, text]) => [new URL(path, HERE).pathname, text]),
);

/** The source a relative import names (`./x` as x.ts, x.tsx or x/index.*), undefined for others (styles, images). */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = new URL(specifier, `file://${from}`).pathname;
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`, base].find(
    (path) => /\.tsx?$/.test(path) && SOURCES.has(path),
  );
}

/** Every source the login application's start (entries/login/main.tsx calls it) imports, directly or not. */
function loginAppSources(): Map<string, string> {
  const sources = new Map<string, string>();
  const pending = ['/src/login-app/start-login.tsx'];
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

describe("the login application's texts (its HTML carries only these)", () => {
  const sources = loginAppSources();

  it('reads the files of the sign-in form, the password link form, the branding and the language menu', () => {
    const names = [...sources.keys()];
    expect(names).toEqual(
      expect.arrayContaining([
        '/src/login-app/login-app.tsx',
        '/src/features/sign-in/components/sign-in-form.tsx',
        '/src/features/password-link/password-link-form.tsx',
        '/src/features/language/components/language-menu.tsx',
        '/src/app/branded-shell.tsx',
      ]),
    );
  });

  it("uses no text key the contract's LOGIN_TEXT_KEYS lacks, and none made at run time", () => {
    const listed = new Set<string>(LOGIN_TEXT_KEYS);
    const used = new Map<string, string>();
    for (const [file, text] of sources) {
      // t('key'), t("key", …) and a PageMessage's { key: 'key' }.
      for (const match of text.matchAll(/(?:\bt\(\s*|\bkey:\s*)['"]([\w.]+)['"]/g))
        used.set(match[1] ?? '', file);
      // A key put together at run time could not be checked here.
      expect(text, file).not.toMatch(/(?:\bt\(\s*|\bkey:\s*)`/);
    }
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used.keys()].filter((key) => !isTextKey(key));
    expect(unknown).toEqual([]);
    const missing = [...used].filter(([key]) => !listed.has(key)).map(([key, file]) => `${key} (${file})`);
    expect(missing).toEqual([]);
  });
});
