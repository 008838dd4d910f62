#!/usr/bin/env node
// Rewrites the README's settings table from the server's SETTINGS (after `npm run build`), so a
// new or changed setting is documented in one step; readme-settings.test.ts keeps the two in step.
import { readFileSync, writeFileSync } from 'node:fs';
import { SETTINGS } from '../apps/server/dist/config.js';

const rows = Object.entries(SETTINGS).map(([name, { schema, doc }]) => {
  const fallback = schema.default === '' ? '(empty)' : String(schema.default);
  return `| \`${name}\` | \`${fallback}\` | ${doc.replaceAll('|', '\\|')} |`;
});
const lines = readFileSync('README.md', 'utf8').split('\n');
const first = lines.findIndex((line) => line.startsWith('| `PORT`'));
let end = first;
while (end < lines.length && lines[end].startsWith('|')) end += 1;
lines.splice(first, end - first, ...rows);
writeFileSync('README.md', lines.join('\n'));
