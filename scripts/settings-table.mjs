#!/usr/bin/env node
// Prints the README's settings table from the server's SETTINGS (after `npm run build`), so a new
// or changed setting is documented by pasting, and readme-settings.test.ts keeps the two in step.
import { SETTINGS } from '../apps/server/dist/config.js';

process.stdout.write('| variable | default | meaning |\n|---|---|---|\n');
for (const [name, { schema, doc }] of Object.entries(SETTINGS)) {
  const fallback = schema.default === '' ? '(empty)' : String(schema.default);
  process.stdout.write(`| \`${name}\` | \`${fallback}\` | ${doc.replaceAll('|', '\\|')} |\n`);
}
