#!/usr/bin/env node
// Writes the documentation's reference pages from the code (after `npm run build`): the settings
// reference, docs/reference/settings.md, and the others of scripts/docs-reference.mjs, so a new or
// changed setting is documented in one step; readme-settings.test.ts keeps the two in step. (Its
// name is from when the settings table was in the README; npm run docs:reference does the same.)
import { writeReference } from './docs-reference.mjs';

await writeReference();
process.stdout.write('wrote docs/reference/ and docs/public/openapi.json\n');
