import { describe, expect, it } from 'vitest';
import { AUDIT_EVENTS } from './domain/audit/audit-events.js';
import { docsPage } from './testing/guide-pages.js';

describe('the audit events reference (docs/reference/audit-events.md, npm run docs:reference)', () => {
  const reference = docsPage('reference/audit-events.md');
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('<', '&lt;');
  it.each(Object.entries(AUDIT_EVENTS))('lists %s with what it records', (name, what) => {
    expect(reference).toContain(`| \`${name}\` | ${cell(what)} |`);
  });
});
