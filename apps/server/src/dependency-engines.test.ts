import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);

/** The oldest Node.js the product supports: the root package.json's `engines.node` (the README names it). */
function oldestNode(): string {
  const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    engines: { node: string };
  };
  const oldest = semver.minVersion(manifest.engines.node);
  if (oldest === null) throw new Error(`engines.node "${manifest.engines.node}" names no version`);
  return oldest.version;
}

describe('the installed dependencies', () => {
  it('all run on the oldest Node.js the README names, so `npm ci` prints no engine warning', () => {
    const oldest = oldestNode();
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).toContain(`Node.js ${semver.major(oldest)}.${semver.minor(oldest)} or newer`);
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return path !== '' && node !== undefined && !semver.satisfies(oldest, node);
      })
      .map(([path, entry]) => `${path}@${entry.version ?? '?'} needs node ${JSON.stringify(entry.engines)}`);
    expect(refusing).toEqual([]);
  });
});
