import { readFileSync } from 'node:fs';

/** The product's name in the root package.json, which carries the release's version. */
const PRODUCT_PACKAGE = 'emergency-access';

/**
 * The release this server and `dea` belong to: the version of the root package.json, the one place
 * a release's version is written (scripts/release.mjs puts the same file, with the version it
 * builds, at the top of the package and the tarball). Found by walking up from this module, which
 * is four folders deep in the checkout (apps/server/src or dist) and in every release alike. Not the
 * specification's application version (APP_VERSION, 8.0.20), which the page shows in its footer.
 */
function readReleaseVersion(): string {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', folder), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === PRODUCT_PACKAGE && typeof manifest.version === 'string') return manifest.version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (folder.pathname === '/') {
      throw new Error(`the product's package.json (${PRODUCT_PACKAGE}) is not above ${import.meta.url}`);
    }
  }
}

export const RELEASE_VERSION: string = readReleaseVersion();
