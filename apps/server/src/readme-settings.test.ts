import { describe, expect, it } from 'vitest';
import { SETTINGS } from './config.js';
import { docsPage, readme } from './testing/guide-pages.js';

describe('the settings reference (docs/reference/settings.md, npm run docs:reference)', () => {
  const reference = docsPage('reference/settings.md');

  it.each(Object.entries(SETTINGS))('documents %s with its default', (name, setting) => {
    const fallback = (setting.schema as { default?: unknown }).default;
    const shown = fallback === '' ? '(empty)' : String(fallback);
    expect(reference).toContain(`| \`${name}\` | \`${shown}\` |`);
  });
});

describe('README', () => {
  it('starts with the two commands', () => {
    const firstBlock = readme().split('```')[1] ?? '';
    expect(firstBlock).toContain('npm ci && npm start');
    expect(firstBlock).toContain('npm test');
  });

  it('is at most 150 lines: what it is, the two commands, what the tests need, where to go next', () => {
    expect(readme().trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });
});
