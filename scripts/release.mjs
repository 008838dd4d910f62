#!/usr/bin/env node
// npm run release: the release artifacts of this checkout, reproducibly (docs/decisions/0021).
//   dist/release/dea_<version>_<arch>.deb          the Debian package (dpkg-deb, no debhelper)
//   dist/release/dea-<version>-linux-<arch>.tar.gz  the same product for other systems
//   dist/release/SHA256SUMS
// Every file gets the commit's time (SOURCE_DATE_EPOCH, else `git log -1 --format=%ct`), owner
// root and a mode of 0644 or 0755, and every list is sorted: building the same commit twice gives
// byte-identical files (release.test.ts). The product is the server's two bundles (the server and
// the `dea` tool, each with the contract and the packages it imports in one file), the web assets,
// and the few packages the bundles load from node_modules (apps/server/scripts/bundle-externals.mjs)
// with what those need, as the lock resolves them, the native better-sqlite3 built by `npm ci`
// included: the target needs Node.js, no compiler. The licences of the packages inside the bundles
// are in THIRD-PARTY-NOTICES (docs/decisions/0026).
// Options: --version V (default: the root package.json's), --out DIR, --no-build, --only deb|tar,
// --compression xz|gzip|none (of the package; xz unless a test wants speed), --compression-level
// 0-9 (dpkg-deb's -z: its own default, 6 for xz, unless a test wants speed).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  openSync,
  readSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  lutimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { BUNDLE_EXTERNALS } from '../apps/server/scripts/bundle-externals.mjs';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    version: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean' },
    // For tests that need a package quickly: the package's compression, and one artifact only.
    compression: { type: 'string', default: 'xz' },
    'compression-level': { type: 'string' },
    only: { type: 'string' },
  },
});
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const version = values.version ?? manifest.version;
if (!/^[0-9][A-Za-z0-9.+~]*$/.test(version)) throw new Error(`--version ${version}: not a Debian version`);
const level = values['compression-level'];
if (level !== undefined && !/^[0-9]$/.test(level)) throw new Error(`--compression-level ${level}: 0 to 9`);
const out = values.out ?? join(ROOT, 'dist/release');
const epoch = Number(
  process.env.SOURCE_DATE_EPOCH ??
    execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: ROOT, encoding: 'utf8' }).trim(),
);
const arch = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
const nodeMajor = Number(process.versions.node.split('.')[0]);
// The maintainer: DEA_MAINTAINER, else the commit's author (reproducible from the commit).
const maintainer =
  process.env.DEA_MAINTAINER ??
  execFileSync('git', ['log', '-1', '--format=%an <%ae>'], { cwd: ROOT, encoding: 'utf8' }).trim();
const run = (command, args, options = {}) =>
  execFileSync(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], ...options });

if (!values['no-build']) run('npm', ['run', 'build'], { stdio: 'inherit' });

// --- the product tree -------------------------------------------------------------------------

const work = join(out, 'work');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const product = join(work, 'product');

/** Copies a folder, leaving out what `skip` names (its path relative to `from`). */
function copyTree(from, to, skip = () => false, base = from) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from).sort()) {
    const source = join(from, name);
    const path = relative(base, source);
    if (skip(path, name)) continue;
    const stat = lstatSync(source);
    if (stat.isDirectory()) copyTree(source, join(to, name), skip, base);
    else if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), join(to, name));
    else if (stat.isFile()) copyFileSync(source, join(to, name));
  }
}

/**
 * The documentation's Markdown (the guides and the reference the README links to, as docs/ holds
 * them), without the site's configuration, build and cache: the README's links and the settings'
 * mentions of docs/operator/... lead to these beside it.
 */
const docsOnly = (path, name) =>
  name.startsWith('.') || name === 'public' || !(/\.md$/.test(name) || !name.includes('.'));

// The server as it runs: its two bundles (apps/server/scripts/bundle.mjs), each the server or the
// `dea` tool with the contract and every package it imports in one file, and the licence comments
// esbuild gathered from their code (`<bundle>.LEGAL.txt`, where there are any). The per-module
// files compile.mjs writes beside them are not run by anything the release holds.
const BUNDLES = ['server.js', 'dea.js'];
for (const part of ['apps/server', 'apps/web']) {
  if (!existsSync(join(ROOT, part, 'dist'))) throw new Error(`${part}/dist is missing: run npm run build`);
}
mkdirSync(join(product, 'apps/server/dist'), { recursive: true });
for (const bundle of BUNDLES.flatMap((name) => [name, `${name}.LEGAL.txt`])) {
  const source = join(ROOT, 'apps/server/dist', bundle);
  if (existsSync(source)) copyFileSync(source, join(product, 'apps/server/dist', bundle));
  else if (!bundle.endsWith('.LEGAL.txt'))
    throw new Error(`apps/server/dist/${bundle} is missing: run npm run build`);
}
copyTree(join(ROOT, 'apps/server/bin'), join(product, 'apps/server/bin'));
copyFileSync(join(ROOT, 'apps/server/package.json'), join(product, 'apps/server/package.json'));
copyTree(join(ROOT, 'apps/web/dist'), join(product, 'apps/web/dist'));
writeFileSync(
  join(product, 'package.json'),
  `${JSON.stringify({ name: manifest.name, version, license: manifest.license, private: true, type: 'module' }, null, 2)}\n`,
);

// Packages, resolved as Node resolves them through the lock's layout.
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
function resolveIn(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const prefix = dir === '.' || dir === '' ? '' : `${dir}/`;
    const candidate = `${prefix}node_modules/${name}`;
    if (lock[candidate] !== undefined) return candidate;
    if (prefix === '') return undefined;
  }
}
/**
 * Packages a dependency lists but runs only when npm installs it: better-sqlite3's download of a
 * prebuilt library (`npm ci` built or fetched it already; the release ships the library itself).
 */
const INSTALL_ONLY = new Set(['prebuild-install']);
/**
 * The lock's paths of `starts` and of everything they need, optional packages where installed;
 * the packages named in `leaveOut` (and what only they need) not followed.
 */
function dependencyClosure(starts, leaveOut = new Set()) {
  const needed = new Set(starts);
  const pending = [...starts];
  while (pending.length > 0) {
    const at = pending.pop();
    const entry = lock[at];
    const optional = new Set([
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    ]);
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}),
    ];
    for (const name of names) {
      if (INSTALL_ONLY.has(name) || leaveOut.has(name)) continue;
      const found = resolveIn(at, name);
      if (found === undefined || !existsSync(join(ROOT, found))) {
        if (optional.has(name)) continue;
        throw new Error(`${at} needs ${name}, which is not installed: run npm ci`);
      }
      if (needed.has(found)) continue;
      needed.add(found);
      const target = lock[found].link ? lock[found].resolved : found;
      if (lock[found].link) needed.add(target);
      pending.push(target);
    }
  }
  return needed;
}
// What the bundles load at run time: their externals that the server depends on (the optional
// native PostgreSQL driver is no dependency of it, and not installed) and what those need.
const serverDependencies = lock['apps/server'].dependencies ?? {};
const runtime = dependencyClosure(
  BUNDLE_EXTERNALS.filter((name) => Object.hasOwn(serverDependencies, name)).map((name) => {
    const found = resolveIn('apps/server', name);
    if (found === undefined || !existsSync(join(ROOT, found)))
      throw new Error(`apps/server needs ${name}, which is not installed: run npm ci`);
    return found;
  }),
);
// What is inside the bundles: the server's production dependencies and the contract's but the
// externals, walked as above (the server imports the contract as @dea/contract, the workspace's
// link, which its package.json does not list: a TypeScript project reference). A package both
// inside a bundle and needed by an external (fastify-plugin, by the OpenAPI packages) is listed
// in the notices and shipped under node_modules as well.
const bundled = [
  ...dependencyClosure(
    ['apps/server', 'packages/contract', 'node_modules/@dea/contract'],
    new Set(BUNDLE_EXTERNALS),
  ),
].filter((path) => path.includes('node_modules/') && !lock[path].link);

/**
 * The licences of the packages inside the bundles, which ship no folder of their own: each
 * package's name, version and declared licence, then its licence files (LICENSE, LICENCE, COPYING,
 * NOTICE, in any case and with any ending) as the package holds them.
 */
function thirdPartyNotices() {
  const seen = new Set();
  const sections = [];
  const packages = bundled
    .map((path) => ({ path, name: path.replace(/^.*node_modules\//, ''), lockEntry: lock[path] }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { path, name, lockEntry } of packages) {
    const key = `${name}@${lockEntry.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const files = readdirSync(join(ROOT, path))
      .filter((file) => /^(licen[cs]e|copying|notice)([.\-_].*)?$/i.test(file))
      .filter((file) => lstatSync(join(ROOT, path, file)).isFile())
      .sort();
    const texts = files.map((file) => readFileSync(join(ROOT, path, file), 'utf8').trimEnd());
    sections.push(
      [
        `${name} ${lockEntry.version} (${lockEntry.license ?? 'no licence declared'})`,
        ...(texts.length === 0
          ? ['The package holds no licence file; its package.json declares the licence above.']
          : texts),
      ].join('\n\n'),
    );
  }
  return [
    'Emergency Access: the packages built into apps/server/dist/server.js and dea.js',
    '(apps/server/scripts/bundle.mjs), with the licence each declares and the licence files it holds.',
    'The packages under node_modules keep their own files beside them.',
    '',
    ...sections.map((section) => `${'='.repeat(78)}\n${section}\n`),
  ].join('\n');
}
writeFileSync(join(product, 'THIRD-PARTY-NOTICES'), thirdPartyNotices());

/**
 * What a package needs at run time: not its sources of native code, its tests, benchmarks and
 * examples (top-level folders of those names), dot files (lint and VCS settings) or nested modules
 * (each its own entry of the lock).
 */
const NOT_RUN = new Set([
  'test',
  'tests',
  '__tests__',
  'benchmark',
  'benchmarks',
  'example',
  'examples',
  'integration',
]);
const NATIVE_BUILD = /^(deps|src|build\/(?!Release(\/better_sqlite3\.node)?$).*)$/;
for (const path of [...runtime].sort()) {
  const entry = lock[path];
  if (entry.link) {
    mkdirSync(dirname(join(product, path)), { recursive: true });
    symlinkSync(relative(dirname(join(product, path)), join(product, entry.resolved)), join(product, path));
    continue;
  }
  copyTree(
    join(ROOT, path),
    join(product, path),
    (rel, name) =>
      name === 'node_modules' ||
      name.startsWith('.') ||
      (!rel.includes('/') && NOT_RUN.has(name)) ||
      (path.endsWith('/better-sqlite3') && (NATIVE_BUILD.test(rel) || rel === 'binding.gyp')),
  );
}
// better-sqlite3's library, stripped as dh_strip strips a shared library (and not executable).
run('strip', [
  '--remove-section=.comment',
  '--remove-section=.note',
  '--strip-unneeded',
  join(product, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
]);
if (!existsSync(join(product, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))) {
  throw new Error('better-sqlite3 is not built in node_modules: run npm ci (it builds it)');
}

// --- file lists, modes and times --------------------------------------------------------------

/** A script (#!) or an ELF executable; a shared object (.node) is not one. */
function isProgram(path) {
  const head = Buffer.alloc(18);
  const descriptor = openSync(path, 'r');
  try {
    readSync(descriptor, head, 0, 18, 0);
  } finally {
    closeSync(descriptor);
  }
  if (head.subarray(0, 2).toString() === '#!') return true;
  return head.subarray(0, 4).toString('latin1') === '\x7fELF' && head.readUInt16LE(16) === 2; // ET_EXEC
}

/** Every path under root, sorted, a folder before what it holds; symbolic links not followed. */
function treePaths(root) {
  const paths = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      paths.push(path);
      if (lstatSync(path).isDirectory()) walk(path);
    }
  };
  walk(root);
  return paths;
}

/** Every file and folder under root (sorted), with modes 0755/0644 and the release's time. */
function normalize(root) {
  const paths = treePaths(root);
  for (const path of paths) {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    chmodSync(path, stat.isDirectory() || isProgram(path) ? 0o755 : 0o644);
  }
  for (const path of [...paths].reverse()) lutimesSync(path, epoch, epoch);
  utimesSync(root, epoch, epoch);
  return paths;
}

/**
 * Installed-Size as dpkg-gencontrol counts it (deb-substvars(5)): each regular file and symbolic
 * link its size in KiB rounded up, once however many hard links it has, and one KiB for anything
 * else (a folder). It depends on the files alone: `du --apparent-size`, used before, counted the
 * folders as their filesystem sizes them (4 KiB each on ext4, less on tmpfs), so the same commit
 * gave another package on another filesystem.
 */
function installedSizeKb(root) {
  const seen = new Set();
  let kb = 1; // the root folder, which find(1) visits too
  for (const path of treePaths(root)) {
    const stat = lstatSync(path);
    if (!stat.isFile() && !stat.isSymbolicLink()) {
      kb += 1;
      continue;
    }
    const inode = `${stat.dev}:${stat.ino}`;
    if (seen.has(inode)) continue;
    if (stat.nlink > 1) seen.add(inode);
    kb += Math.ceil(stat.size / 1024);
  }
  return kb;
}

// --- the settings files (docs/decisions/0037) -------------------------------------------------------

const { SETTINGS } = await import(join(ROOT, 'apps/server/dist/config.js'));
// dea(1), from the table of commands `dea --help` prints.
const { COMMAND_GROUPS } = await import(join(ROOT, 'apps/server/dist/cli/run.js'));
const { manualPage: renderManualPage } = await import(join(ROOT, 'apps/server/dist/cli/manual-page.js'));
const manualPage = () =>
  renderManualPage(COMMAND_GROUPS, version, new Date(epoch * 1000).toISOString().slice(0, 10));
/**
 * The packaged defaults (/usr/lib/dea/dea.env of the package, dea.env of the tarball): loopback
 * only, the management port, the secret from a file. Replaced by every release; the operator's
 * settings go in /etc/dea/dea.env and /etc/dea/dea.env.d/*.env, which no release writes.
 */
const PACKAGED = {
  HOST: '127.0.0.1',
  DEA_MANAGEMENT_PORT: '9000',
  DEA_MANAGEMENT_HOST: '127.0.0.1',
  DEA_SECRET_FILE: '/etc/dea/secret',
};
function wrap(text, prefix, width = 98) {
  const lines = [];
  let line = prefix;
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > width && line !== prefix) {
      lines.push(line);
      line = prefix;
    }
    line += (line === prefix ? '' : ' ') + word;
  }
  lines.push(line);
  return lines.join('\n');
}
/** Every setting with its default and what it does, commented out: the example of the settings. */
const exampleFile = [
  '# Emergency Access: every setting of this release with its default, commented out (an example).',
  '# Copy a line into /etc/dea/dea.env, or into a file of /etc/dea/dea.env.d/ ending in .env, remove',
  '# the #, then systemctl restart dea; dea reads the same files. NAME=value, one a line; a value with',
  '# spaces or a JSON object goes in single quotes. The guides a setting names (docs/operator/...)',
  '# are in /usr/share/doc/dea/docs/ (the package) or docs/ (the tarball).',
  '',
  ...Object.entries(SETTINGS).flatMap(([name, { schema, doc }]) => {
    const fallback = schema.default === undefined ? '' : String(schema.default);
    return [
      wrap(`${name}: ${doc}`, '# '),
      ...(Object.hasOwn(PACKAGED, name) ? [`# Packaged: ${name}=${PACKAGED[name]}`] : []),
      `#${name}=${/[\s{}"'$`\\]/.test(fallback) ? `'${fallback}'` : fallback}`,
      '',
    ];
  }),
].join('\n');
/** The packaged defaults, read first (DEA_SETTINGS_FILES of the unit and of dea). */
const defaultsFile = (example) =>
  [
    "# Emergency Access: the release's packaged settings, read before the operator's own.",
    '# Replaced by every release: do not edit. Set or override a setting in',
    '# /etc/dea/dea.env or /etc/dea/dea.env.d/*.env, which no release writes. Every setting, with',
    `# its default and what it does: ${example}.`,
    ...Object.entries(PACKAGED).map(([name, value]) => `${name}=${value}`),
    '',
  ].join('\n');
// --- the Debian package -------------------------------------------------------------------------

const debName = `dea_${version}_${arch}.deb`;
function buildDeb() {
  const deb = join(work, 'deb');
  copyTree(product, join(deb, 'usr/lib/dea'));
  mkdirSync(join(deb, 'usr/bin'), { recursive: true });
  copyFileSync(join(ROOT, 'packaging/debian/dea'), join(deb, 'usr/bin/dea'));
  chmodSync(join(deb, 'usr/bin/dea'), 0o755);
  const unit = readFileSync(join(ROOT, 'deploy/systemd/dea.service'), 'utf8')
    .replace(/^# Install: .*\n/m, '')
    .replace('Documentation=file:/opt/dea/README.md', 'Documentation=file:/usr/share/doc/dea/README.md')
    .replace('ExecStart=/usr/bin/env node /opt/dea/', 'ExecStart=/usr/bin/node /usr/lib/dea/')
    .replaceAll('/opt/dea', '/usr/lib/dea');
  mkdirSync(join(deb, 'lib/systemd/system'), { recursive: true });
  writeFileSync(join(deb, 'lib/systemd/system/dea.service'), unit);
  // Nothing under /etc: the operator's settings file is made once by postinst, never shipped.
  writeFileSync(
    join(deb, 'usr/lib/dea/dea.env'),
    defaultsFile('/usr/share/doc/dea/examples/dea.env.example'),
  );
  const doc = join(deb, 'usr/share/doc/dea');
  mkdirSync(join(doc, 'examples'), { recursive: true });
  writeFileSync(join(doc, 'examples/dea.env.example'), exampleFile);
  copyFileSync(join(ROOT, 'packaging/debian/README.Debian'), join(doc, 'README.Debian'));
  copyFileSync(join(ROOT, 'README.md'), join(doc, 'README.md'));
  copyTree(join(ROOT, 'docs'), join(doc, 'docs'), docsOnly);
  writeFileSync(join(doc, 'copyright'), readFileSync(join(ROOT, 'packaging/debian/copyright'), 'utf8'));
  const man = join(deb, 'usr/share/man/man1');
  mkdirSync(man, { recursive: true });
  writeFileSync(join(man, 'dea.1.gz'), gzipSync(manualPage(), { level: 9 }));
  const date = new Date(epoch * 1000).toUTCString().replace('GMT', '+0000');
  const changelog = `dea (${version}) unstable; urgency=medium\n\n  * Release ${version} of Emergency Access.\n\n -- ${maintainer}  ${date}\n`;
  writeFileSync(join(doc, 'changelog.gz'), gzipSync(changelog, { level: 9 }));
  mkdirSync(join(deb, 'DEBIAN'));
  for (const script of ['config', 'postinst', 'prerm', 'postrm']) {
    copyFileSync(join(ROOT, 'packaging/debian', script), join(deb, 'DEBIAN', script));
    chmodSync(join(deb, 'DEBIAN', script), 0o755);
  }
  copyFileSync(join(ROOT, 'packaging/debian/templates'), join(deb, 'DEBIAN/templates'));
  const installedKb = installedSizeKb(deb);
  writeFileSync(
    join(deb, 'DEBIAN/control'),
    [
      'Package: dea',
      `Version: ${version}`,
      `Architecture: ${arch}`,
      `Maintainer: ${maintainer}`,
      `Installed-Size: ${installedKb}`,
      // The native better-sqlite3 is built for this Node.js major's ABI.
      `Depends: nodejs (>= 20.19), nodejs (<< ${nodeMajor + 1}), debconf (>= 0.5) | debconf-2.0, adduser, passwd, util-linux (>= 2.32), libc6 (>= 2.34), libgcc-s1, libstdc++6 (>= 12)`,
      'Section: admin',
      'Priority: optional',
      'Description: self-service emergency codes for two-factor authentication',
      ' Emergency Access lets a signed-in user who has lost their second factor get a',
      ' one-time emergency code, shown on screen or sent to a registered channel. The',
      ' package holds the server, its page, login application and console, the dea',
      ' command, a systemd unit and the settings file /etc/dea/dea.env.',
      '',
    ].join('\n'),
  );
  normalize(deb);
  const debFiles = (dir) =>
    treePaths(dir)
      .filter((path) => lstatSync(path).isFile())
      .map((path) => relative(dir, path))
      .filter((path) => !path.startsWith('DEBIAN/'));
  writeFileSync(
    join(deb, 'DEBIAN/md5sums'),
    debFiles(deb)
      .map(
        (path) =>
          `${createHash('md5')
            .update(readFileSync(join(deb, path)))
            .digest('hex')}  ${path}`,
      )
      .join('\n') + '\n',
  );
  chmodSync(join(deb, 'DEBIAN/md5sums'), 0o644);
  normalizeTimes(deb);
  function normalizeTimes(root) {
    for (const path of treePaths(root).reverse()) lutimesSync(path, epoch, epoch);
    utimesSync(root, epoch, epoch);
  }
  mkdirSync(out, { recursive: true });
  run(
    'dpkg-deb',
    [
      '--root-owner-group',
      '--threads-max=1',
      `-Z${values.compression}`,
      ...(level === undefined ? [] : [`-z${level}`]),
      '--build',
      deb,
      join(out, debName),
    ],
    { env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) } },
  );
}

// --- the tarball for other systems ------------------------------------------------------------

const tarName = `dea-${version}-linux-${arch}.tar.gz`;
function buildTar() {
  const tarTop = `dea-${version}`;
  const tarRoot = join(work, 'tar', tarTop);
  copyTree(product, tarRoot);
  mkdirSync(join(tarRoot, 'bin'));
  symlinkSync('../apps/server/bin/dea.js', join(tarRoot, 'bin/dea'));
  copyTree(join(ROOT, 'deploy'), join(tarRoot, 'deploy'), (path) => path.endsWith('.test.yml'));
  copyFileSync(join(ROOT, 'README.md'), join(tarRoot, 'README.md'));
  copyTree(join(ROOT, 'docs'), join(tarRoot, 'docs'), docsOnly);
  writeFileSync(join(tarRoot, 'dea.env'), defaultsFile('dea.env.example beside this file'));
  writeFileSync(join(tarRoot, 'dea.env.example'), exampleFile);
  copyFileSync(join(ROOT, 'LICENSE'), join(tarRoot, 'LICENSE'));
  normalize(join(work, 'tar'));
  const tar = run(
    'tar',
    [
      '--sort=name',
      '--format=gnu',
      `--mtime=@${epoch}`,
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '-C',
      join(work, 'tar'),
      '-cf',
      '-',
      tarTop,
    ],
    { maxBuffer: 1 << 30 },
  );
  writeFileSync(join(out, tarName), gzipSync(tar, { level: 9 }));
}

// --- checksums ------------------------------------------------------------------------------------

mkdirSync(out, { recursive: true });
const built = [];
if (values.only !== 'tar') {
  buildDeb();
  built.push(debName);
}
if (values.only !== 'deb') {
  buildTar();
  built.push(tarName);
}
const sums = built
  .map(
    (name) =>
      `${createHash('sha256')
        .update(readFileSync(join(out, name)))
        .digest('hex')}  ${name}`,
  )
  .join('\n');
writeFileSync(join(out, 'SHA256SUMS'), `${sums}\n`);
rmSync(work, { recursive: true, force: true });
process.stdout.write(`${sums}\n(in ${out}; SOURCE_DATE_EPOCH=${epoch}, Node.js ${nodeMajor})\n`);
