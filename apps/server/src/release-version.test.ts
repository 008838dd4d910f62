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
