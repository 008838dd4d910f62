import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPOSITORY } from './testing/guide-pages.js';

/** A repository of its own: the README, Markdown pages of docs/ and the site built from them. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dea-check-docs-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function checkDocs(root: string) {
  return spawnSync('node', [join(REPOSITORY, 'scripts/check-docs.mjs'), '--no-build', '--root', root], {
    encoding: 'utf8',
  });
}

const SOUND = {
  'README.md':
    '# R\n\n[Install](docs/operator/install.md#tls), [unit](deploy/dea.service), <https://example.com/>\n',
  'deploy/dea.service': '[Unit]\n',
  'docs/operator/install.md': '# Install\n\n## TLS\n\nSee [the API](../integrator/api.md) and [TLS](#tls).\n',
  'docs/integrator/api.md': '# The API\n\n```sh\necho "[not](a-link.md)"\n```\n',
  'docs/.vitepress/dist/operator/install.html':
    '<h1 id="install">Install</h1><h2 id="tls">TLS</h2><a href="/integrator/api.html#the-api">api</a><a href="#tls">x</a>',
  'docs/.vitepress/dist/integrator/api.html': '<h1 id="the-api">The API</h1><a href="/">home</a>',
  'docs/.vitepress/dist/index.html': '<a href="https://example.com/">out</a>',
};

describe('scripts/check-docs.mjs, the link check of the documentation (npm test)', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('passes a tree whose links all lead somewhere, listing external addresses without fetching them', () => {
    const root = tree(SOUND);
    roots.push(root);
    const run = checkDocs(root);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/0 dead, 1 external addresses listed, not fetched/);
  });

  it('names each dead link: a missing page or repository file, a missing heading, a built href to nothing', () => {
    const root = tree({
      ...SOUND,
      'README.md': '# R\n\n[gone](docs/operator/gone.md), [unit](deploy/nothing.service)\n',
      'docs/operator/install.md': '# Install\n\nSee [the API](../integrator/api.md#no-such-heading).\n',
      'docs/.vitepress/dist/integrator/api.html':
        '<h1 id="the-api">The API</h1><a href="/operator/gone.html">x</a>',
    });
    roots.push(root);
    const run = checkDocs(root);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('README.md: docs/operator/gone.md leads to no file');
    expect(run.stderr).toContain('README.md: deploy/nothing.service leads to no file');
    expect(run.stderr).toContain('docs/operator/install.md: ../integrator/api.md#no-such-heading');
    expect(run.stderr).toContain('href /operator/gone.html leads to nothing the site built');
    expect(run.stdout).toMatch(/ 4 dead,/);
  });
});
