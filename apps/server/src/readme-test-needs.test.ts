import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The packages `.ci/run` installs when a clean machine lacks them (`missing+=(name)`). */
function ciPackages(script: string): string[] {
  return [...script.matchAll(/missing\+=\(([^)]+)\)/g)].map((match) => match[1] ?? '');
}

/** The packages the README says `npm test` needs (its sentence "The Debian packages it needs: ..."). */
function readmePackages(readme: string): string[] {
  const sentence = /The Debian packages it needs: ((?:`[^`]+`,?\s*)+)/.exec(readme)?.[1] ?? '';
  return [...sentence.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
}

describe('what the tests need', () => {
  it('is the same list in the README and in .ci/run', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const script = readFileSync(new URL('../../../.ci/run', import.meta.url), 'utf8');
    const installed = ciPackages(script);
    expect(installed.length).toBeGreaterThan(5);
    expect([...readmePackages(readme)].sort()).toEqual([...installed].sort());
  });
});
