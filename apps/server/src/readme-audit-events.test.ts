import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_EVENTS } from './domain/audit-events.js';

describe("the README's audit log section", () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  it.each(Object.entries(AUDIT_EVENTS))('lists %s with what it records', (name, what) => {
    expect(readme).toContain(`| \`${name}\` | ${what} |`);
  });
});
