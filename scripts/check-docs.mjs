#!/usr/bin/env node
// npm run docs:check (and a step of `npm test`): builds the documentation site (VitePress, which
// fails on a dead link between its pages) and checks every link, without the network:
// - in the Markdown (README.md and every page of docs/): a relative link leads to a file or folder
//   of the repository, and its #anchor to a heading of that page;
// - in the built site (docs/.vitepress/dist): every href to the site leads to a built file, and
//   its #anchor to an id in it (the navigation and sidebar included).
// Addresses outside (http, https, mailto) are counted, never fetched; --list-external prints them.
// --no-build checks the site as last built; --root <folder> checks another tree (its tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootAt = process.argv.indexOf('--root');
const ROOT = rootAt > 0 ? resolve(process.argv[rootAt + 1]) : fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const SITE = join(DOCS, '.vitepress/dist');
const args = new Set(process.argv.slice(2));
const began = performance.now();

if (!args.has('--no-build')) {
  // npm run docs:build: the served OpenAPI document (from the built server), then the site.
  const build = spawnSync('npm', ['run', '--silent', 'docs:build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write(
      'the documentation site did not build (VitePress names the page and the dead link above)\n',
    );
    process.exit(1);
  }
}

/** Every file under a folder whose name passes, skipping what is never a page. */
function filesUnder(folder, wanted) {
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'cache') continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (path !== SITE || wanted('.html')) found.push(...filesUnder(path, wanted));
    } else if (wanted(entry.name)) found.push(path);
  }
  return found;
}

const problems = [];
const external = new Set();
let checked = 0;
const isExternal = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The ids of a built page (VitePress writes one for every heading). */
const idsOfPage = new Map();
function idsOf(htmlFile) {
  if (!idsOfPage.has(htmlFile)) {
    const html = readFileSync(htmlFile, 'utf8');
    idsOfPage.set(
      htmlFile,
      new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => decodeEntities(match[1]))),
    );
  }
  return idsOfPage.get(htmlFile);
}

function decodeEntities(text) {
  return text
    .replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>');
}

/** GitHub's anchor of a heading, for the Markdown files outside the site (the README). */
function githubSlug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function markdownAnchors(file) {
  const text = withoutCode(readFileSync(file, 'utf8'));
  return new Set(
    [...text.matchAll(/^#{1,6} (.*)$/gm)].map((match) => githubSlug(match[1].replace(/`/g, ''))),
  );
}

/** The Markdown without its code blocks and inline code, where a bracket is not a link. */
function withoutCode(markdown) {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The built page of a Markdown file of docs/, or undefined for one outside the site. */
function builtPageOf(markdownFile) {
  const inDocs = relative(DOCS, markdownFile);
  if (inDocs.startsWith('..') || inDocs.startsWith('.vitepress')) return undefined;
  return join(SITE, inDocs.replace(/\.md$/, '.html'));
}

function checkMarkdown(file) {
  const text = withoutCode(readFileSync(file, 'utf8'));
  const targets = [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]),
    ...[...text.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((match) => match[1]),
  ];
  for (const target of targets) {
    checked += 1;
    if (isExternal(target)) {
      external.add(target);
      continue;
    }
    const [path, anchor] = target.split('#');
    const where = relative(ROOT, file);
    let destination;
    if (path === '') destination = file;
    else if (path.startsWith('/')) {
      // The site's own absolute links: a page of docs/, or a file of docs/public/.
      destination = [join(DOCS, path), join(DOCS, 'public', path)].find((candidate) => existsSync(candidate));
    } else destination = resolve(dirname(file), decodeURIComponent(path));
    if (destination === undefined || !existsSync(destination)) {
      problems.push(
        `${where}: ${target} leads to no file (${relative(ROOT, destination ?? join(DOCS, path))})`,
      );
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (extname(destination) !== '.md') {
      problems.push(`${where}: ${target} has an anchor, but ${relative(ROOT, destination)} is no page`);
      continue;
    }
    const built = builtPageOf(destination);
    const anchors =
      built === undefined ? markdownAnchors(destination) : existsSync(built) ? idsOf(built) : new Set();
    if (!anchors.has(decodeURIComponent(anchor)))
      problems.push(`${where}: ${target}: ${relative(ROOT, destination)} has no heading #${anchor}`);
  }
}

function checkBuiltPage(file) {
  const html = readFileSync(file, 'utf8');
  const page = `docs/.vitepress/dist/${relative(SITE, file)}`;
  for (const [, raw] of html.matchAll(/\shref="([^"]*)"/g)) {
    const target = decodeEntities(raw);
    checked += 1;
    if (isExternal(target) || target.startsWith('//')) {
      external.add(target);
      continue;
    }
    const [path, anchor] = target.split('#');
    let destination =
      path === '' ? file : path.startsWith('/') ? join(SITE, path) : resolve(dirname(file), path);
    if (destination.endsWith('/')) destination = join(destination, 'index.html');
    else if (!existsSync(destination) && existsSync(`${destination}.html`))
      destination = `${destination}.html`;
    if (!existsSync(destination) || statSync(destination).isDirectory()) {
      problems.push(`${page}: href ${target} leads to nothing the site built`);
      continue;
    }
    if (anchor === undefined || anchor === '' || extname(destination) !== '.html') continue;
    if (!idsOf(destination).has(decodeURIComponent(anchor)))
      problems.push(`${page}: href ${target}: ${relative(SITE, destination)} has no id ${anchor}`);
  }
}

const markdown = [join(ROOT, 'README.md'), ...filesUnder(DOCS, (name) => name.endsWith('.md'))].filter(
  (file) => !file.startsWith(SITE),
);
for (const file of markdown) checkMarkdown(file);
const pages = existsSync(SITE) ? filesUnder(SITE, (name) => name.endsWith('.html')) : [];
if (pages.length === 0)
  problems.push('docs/.vitepress/dist holds no page: build the site first (npm run docs:build)');
for (const file of pages) checkBuiltPage(file);

if (args.has('--list-external'))
  for (const address of [...external].sort()) process.stdout.write(`${address}\n`);
for (const problem of problems) process.stderr.write(`dead link: ${problem}\n`);
process.stdout.write(
  `documentation links: ${checked} checked in ${markdown.length} Markdown files and ${pages.length} built pages, ` +
    `${problems.length} dead, ${external.size} external addresses listed, not fetched (${((performance.now() - began) / 1000).toFixed(1)} s)\n`,
);
process.exit(problems.length === 0 ? 0 : 1);
