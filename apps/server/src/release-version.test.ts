import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { APP_VERSION } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { RELEASE_VERSION } from './release-version.js';

describe('the release version', () => {
  it("is the root package.json's, and the page's application version is another", () => {
    const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(RELEASE_VERSION).toBe(root.version);
    // A Debian version (scripts/release.mjs builds the package with it) that sorts after every
    // release made before versions were the product's own, all of which were 8.0.20.
    expect(RELEASE_VERSION).toMatch(/^[0-9][A-Za-z0-9.+~]*$/);
    expect(spawnSync('dpkg', ['--compare-versions', RELEASE_VERSION, 'gt', '8.0.20']).status).toBe(0);
    expect(APP_VERSION).toBe('8.0.20');
  });

  it('is written in one place: no workspace package carries a version of its own', () => {
    for (const workspace of ['packages/contract', 'apps/server', 'apps/web', 'e2e']) {
      const manifest = JSON.parse(
        readFileSync(new URL(`../../../${workspace}/package.json`, import.meta.url), 'utf8'),
      ) as { version?: string };
      expect(manifest.version, workspace).toBeUndefined();
    }
  });
});

describe('the licence', () => {
  it('is Apache-2.0, in LICENSE, the README and the root package.json', () => {
    const at = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
    expect(at('LICENSE')).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(at('README.md')).toContain('licensed under the Apache License, Version 2.0: [`LICENSE`](LICENSE)');
    expect((JSON.parse(at('package.json')) as { license?: string }).license).toBe('Apache-2.0');
  });
});
