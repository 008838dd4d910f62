import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from './config.js';

describe('README', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

  it.each(Object.entries(SETTINGS))('documents %s with its default', (name, setting) => {
    const fallback = (setting.schema as { default?: unknown }).default;
    const shown = fallback === '' ? '(empty)' : String(fallback);
    expect(readme).toContain(`| \`${name}\` | \`${shown}\` |`);
  });

  it('starts with the two commands', () => {
    const firstBlock = readme.split('```')[1] ?? '';
    expect(firstBlock).toContain('npm ci && npm start');
    expect(firstBlock).toContain('npm test');
  });
});
