import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RELEASE_VERSION } from '../../release-version.js';
import { MIGRATION_NAMES, releaseOf, withReleases } from './index.js';

/** dpkg's order of versions, as apt upgrades by it. */
const atMost = (version: string, than: string): boolean =>
  spawnSync('dpkg', ['--compare-versions', version, 'le', than]).status === 0;

describe('the release of each schema change', () => {
  it('is named for every migration, in the order they apply, none after this release', () => {
    let previous = '0';
    for (const name of MIGRATION_NAMES) {
      const release = releaseOf(name);
      expect(release, name).toBeDefined();
      expect(atMost(previous, release ?? ''), `${name}: ${release} comes before ${previous}`).toBe(true);
      expect(atMost(release ?? '', RELEASE_VERSION), `${name}: ${release} is after ${RELEASE_VERSION}`).toBe(
        true,
      );
      previous = release ?? previous;
    }
  });

  it('closes each run of one release with its name', () => {
    const [first = '', second = '', third = ''] = MIGRATION_NAMES;
    expect(withReleases([first, second, third])).toBe(
      `${first}, ${second}, ${third} (release ${releaseOf(third)})`,
    );
    expect(withReleases(['0999-from-elsewhere'])).toBe(
      '0999-from-elsewhere (a release this one does not know)',
    );
  });
});
