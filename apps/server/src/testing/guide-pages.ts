import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const DOCS = join(REPOSITORY, 'docs');

/**
 * The pages of the documentation that show commands and files to copy (everything of docs/ but the
 * generated reference, the architecture, the benchmarks and the decisions), in the order their
 * sections had in the README, which is the order their commands are run by readme-cli.test.ts.
 */
export const GUIDE_PAGES: readonly string[] = [
  'getting-started.md',
  'development.md',
  'operator/configure.md',
  'operator/delivery.md',
  'operator/cli.md',
  'operator/console.md',
  'operator/directory.md',
  'operator/import.md',
  'operator/scim.md',
  'operator/postgresql.md',
  'operator/upgrades.md',
  'operator/install.md',
  'operator/operations.md',
  'operator/audit.md',
  'integrator/api.md',
  'integrator/verification.md',
  'integrator/webhooks.md',
  'integrator/radius.md',
];

/** The pages of docs/ that are no guide: the home page, the generated reference, the design records. */
export const NOT_GUIDES = /^(index\.md|architecture\.md|benchmarks\.md|reference\/|decisions\/)/;

/** A page of docs/, by its path there. */
export function docsPage(path: string): string {
  return readFileSync(join(DOCS, path), 'utf8');
}

/** The README at the repository's root. */
export function readme(): string {
  return readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
}

/** Every guide page, one after the other in GUIDE_PAGES's order. */
export function guidesText(): string {
  return GUIDE_PAGES.map(docsPage).join('\n');
}

/** Every Markdown page of docs/ (outside .vitepress), by its path there. */
export function docsPages(folder = DOCS): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'public') return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return docsPages(path);
    return entry.name.endsWith('.md') ? [relative(DOCS, path)] : [];
  });
}
