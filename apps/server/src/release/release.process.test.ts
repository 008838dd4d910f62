import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEntry } from '../testing/processes.js';
import { REPOSITORY, sharedRelease, TEST_RELEASE_ARGS, type Release } from '../testing/release.js';

/**
 * `npm run release` (scripts/release.mjs): the same commit built twice gives the same bytes, the
 * package passes lintian without an error, and the tarball runs where it is unpacked. The first
 * build is the run's shared one (testing/release.ts), which debian-package.process.test.ts installs.
 */
describe('the release artifacts', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dea-release-'));
  const epoch = spawnSync('git', ['log', '-1', '--format=%ct'], {
    cwd: REPOSITORY,
    encoding: 'utf8',
  }).stdout.trim();
  let first: Release;
  let second: Release;

  beforeAll(async () => {
    builtEntry('server');
    // The second build on the disk's filesystem, the first in memory: the same bytes on both.
    [first, second] = await Promise.all([
      sharedRelease('release', TEST_RELEASE_ARGS),
      sharedRelease('release-again', TEST_RELEASE_ARGS, 'disk'),
    ]);
  }, 900_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('are byte-identical when built twice from one commit, on two filesystems', () => {
    expect(first.deb).toMatch(/^dea_\d+\.\d+\.\d+_[a-z0-9]+\.deb$/);
    expect(first.tar).toMatch(/^dea-\d+\.\d+\.\d+-linux-[a-z0-9]+\.tar\.gz$/);
    expect(second.sums).toBe(first.sums);
    for (const name of [first.deb, first.tar]) {
      expect(readFileSync(join(second.out, name)).equals(readFileSync(join(first.out, name))), name).toBe(
        true,
      );
    }
  });

  it('hold files in sorted order, owned by root, with the commit time and modes 0644 or 0755', () => {
    const listing = spawnSync(
      'tar',
      ['--full-time', '--numeric-owner', '-tvzf', join(first.out, first.tar)],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      },
    )
      .stdout.trim()
      .split('\n');
    const when = new Date(Number(epoch) * 1000).toISOString().replace('T', ' ').slice(0, 19);
    const names: string[] = [];
    for (const line of listing) {
      const [mode = '', owner = '', , day = '', time = '', name = ''] = line.split(/\s+/);
      expect(owner, line).toBe('0/0');
      expect(`${day} ${time}`, line).toBe(when);
      expect(mode, line).toMatch(/^(-rw-r--r--|-rwxr-xr-x|drwxr-xr-x|lrwxrwxrwx)$/);
      names.push(name);
    }
    // tar --sort=name: the entries of each folder in byte order, each folder's own after it.
    const children = new Map<string, string[]>();
    for (const name of names) {
      const parent = name.replace(/[^/]+\/?$/, '');
      children.set(parent, [...(children.get(parent) ?? []), name]);
    }
    for (const [parent, entries] of children) {
      const key = (name: string) => Buffer.from(name.replace(/\/$/, ''));
      const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
      expect(entries, parent).toEqual(sorted);
    }
    const control = spawnSync('dpkg-deb', ['-f', join(first.out, first.deb)], { encoding: 'utf8' }).stdout;
    expect(control).toMatch(/^Depends: nodejs \(>= 20\.19\), nodejs \(<< \d+\)/m);
    // xz, as `npm run release` makes it (the tests' builds at its fastest preset: TEST_RELEASE_ARGS).
    const members = spawnSync('ar', ['t', join(first.out, first.deb)], { encoding: 'utf8' }).stdout;
    expect(members.trim().split('\n')).toEqual(['debian-binary', 'control.tar.xz', 'data.tar.xz']);
  });

  it('hold the two bundles and only the packages they load, with the licences of those inside them', () => {
    const listing = spawnSync('tar', ['-tzf', join(first.out, first.tar)], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }).stdout;
    const top = first.tar.replace(/-linux-.*$/, '');
    const names = listing
      .trim()
      .split('\n')
      .map((name) => name.slice(top.length + 1));
    // The server as it runs, not tsc's per-module files beside the bundles, nor the contract apart.
    expect(names.filter((name) => name.startsWith('apps/server/dist/') && name.endsWith('.js'))).toEqual([
      'apps/server/dist/dea.js',
      'apps/server/dist/server.js',
    ]);
    expect(names.some((name) => name.startsWith('packages/'))).toBe(false);
    // Packages: the bundles' externals (apps/server/scripts/bundle-externals.mjs) and what they need.
    const packages = new Set(
      names.flatMap((name) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/@][^/]*)\/$/.exec(name)?.[1] ?? []),
    );
    for (const name of ['better-sqlite3', 'bindings', '@fastify/swagger', '@fastify/swagger-ui', 'yaml'])
      expect(packages, name).toContain(name);
    for (const name of ['fastify', 'kysely', 'pg', 'typebox', 'nodemailer', 'prebuild-install'])
      expect(packages, name).not.toContain(name);
    expect(names).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    // Each package inside the bundles: its name, version, declared licence and licence text.
    const notices = spawnSync('tar', ['-xzOf', join(first.out, first.tar), `${top}/THIRD-PARTY-NOTICES`], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }).stdout;
    const server = JSON.parse(readFileSync(join(REPOSITORY, 'apps/server/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const fastify = new RegExp(
      `^fastify ${server.dependencies.fastify?.replaceAll('.', '\\.')} \\(MIT\\)\n\nMIT License`,
      'm',
    );
    expect(notices).toMatch(fastify);
    expect(notices).toMatch(/^kysely [\d.]+ \(MIT\)$/m);
    // Inside the server's bundle and needed by the OpenAPI packages as well: listed, and shipped.
    expect(notices).toMatch(/^fastify-plugin [\d.]+ \(MIT\)$/m);
    expect(notices).toMatch(/^@opentelemetry\/api [\d.]+ \(Apache-2\.0\)\n\n +Apache License/m);
    expect(notices).not.toMatch(/^better-sqlite3 /m);
    // The package holds the same product under /usr/lib/dea.
    const contents = spawnSync('dpkg-deb', ['-c', join(first.out, first.deb)], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }).stdout;
    expect(contents).toMatch(/ \.\/usr\/lib\/dea\/THIRD-PARTY-NOTICES$/m);
    expect(contents).toMatch(
      / \.\/usr\/lib\/dea\/node_modules\/better-sqlite3\/build\/Release\/better_sqlite3\.node$/m,
    );
    expect(contents).not.toMatch(/ \.\/usr\/lib\/dea\/node_modules\/fastify\//m);
  });

  it('give the package the Installed-Size dpkg-gencontrol counts for its files', () => {
    // dpkg-gencontrol counts the package's tree before DEBIAN/control and md5sums are written.
    const tree = join(folder, 'installed-size');
    expect(spawnSync('dpkg-deb', ['-R', join(first.out, first.deb), tree]).status).toBe(0);
    rmSync(join(tree, 'DEBIAN/control'));
    rmSync(join(tree, 'DEBIAN/md5sums'));
    const source = join(folder, 'source');
    mkdirSync(join(source, 'debian'), { recursive: true });
    writeFileSync(
      join(source, 'debian/control'),
      'Source: dea\nMaintainer: A <a@example.com>\n\nPackage: dea\nArchitecture: any\nDescription: d\n d\n',
    );
    writeFileSync(
      join(source, 'debian/changelog'),
      'dea (1.0) unstable; urgency=medium\n\n  * d\n\n -- A <a@example.com>  Fri, 27 Nov 2026 00:00:00 +0000\n',
    );
    const counted = spawnSync('dpkg-gencontrol', ['-pdea', `-P${tree}`, '-O'], {
      cwd: source,
      encoding: 'utf8',
    });
    expect(counted.error, 'dpkg-gencontrol is installed (dpkg-dev, with lintian: .ci/run)').toBeUndefined();
    const wanted = /^Installed-Size: (\d+)$/m.exec(counted.stdout)?.[1];
    expect(wanted, counted.stderr).toMatch(/^\d+$/);
    const packaged = spawnSync('dpkg-deb', ['-f', join(first.out, first.deb), 'Installed-Size'], {
      encoding: 'utf8',
    }).stdout.trim();
    expect(packaged).toBe(wanted);
  });

  it('give a package in which lintian finds neither an error nor a warning, with no override', () => {
    const run = spawnSync('lintian', ['--tag-display-limit', '0', join(first.out, first.deb)], {
      // lintian unpacks the package in TMPDIR: beside it, in memory when the release is.
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: first.out },
    });
    expect(run.error, 'lintian is installed (.ci/run)').toBeUndefined();
    expect(run.stdout.split('\n').filter((line) => /^[EW]: /.test(line))).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
    const listing = spawnSync('dpkg-deb', ['-c', join(first.out, first.deb)], { encoding: 'utf8' }).stdout;
    expect(listing).not.toContain('usr/share/lintian/overrides');
    // Nothing under /etc: no release ships a file there (the operator's settings are made once).
    expect(listing).not.toMatch(/ \.\/etc\//);
    for (const path of [
      './usr/lib/dea/dea.env',
      './usr/share/doc/dea/examples/dea.env.example',
      './usr/share/doc/dea/README.Debian',
      './usr/share/doc/dea/copyright',
      './usr/share/man/man1/dea.1.gz',
    ]) {
      expect(listing).toContain(` ${path}\n`);
    }
  }, 600_000);

  it('state the licence: Apache-2.0 in the copyright file (DEP-5), the tarball and the product', () => {
    const copyright = spawnSync('sh', [
      '-c',
      `dpkg-deb --fsys-tarfile ${join(first.out, first.deb)} | tar -xOf - ./usr/share/doc/dea/copyright`,
    ]).stdout.toString();
    expect(copyright).toMatch(
      /^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\/$/m,
    );
    expect(copyright).toMatch(/^Files: \*\nCopyright: .+\nLicense: Apache-2\.0$/m);
    const top = first.tar.replace(/-linux-.*$/, '');
    const license = spawnSync('tar', [
      '-xzOf',
      join(first.out, first.tar),
      `${top}/LICENSE`,
    ]).stdout.toString();
    expect(license).toBe(readFileSync(join(REPOSITORY, 'LICENSE'), 'utf8'));
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    const manifest = JSON.parse(
      spawnSync('tar', ['-xzOf', join(first.out, first.tar), `${top}/package.json`]).stdout.toString(),
    ) as { license?: string; version?: string };
    expect(manifest).toMatchObject({ license: 'Apache-2.0' });
  });

  it('give a tarball whose dea and server run where it is unpacked, from any folder', async () => {
    const unpacked = join(folder, 'unpacked');
    spawnSync('mkdir', ['-p', unpacked]);
    expect(spawnSync('tar', ['-xzf', join(first.out, first.tar), '-C', unpacked]).status).toBe(0);
    const top = join(unpacked, first.tar.replace(/-linux-.*$/, ''));
    const work = mkdtempSync(join(folder, 'work-'));
    const env = { PATH: process.env.PATH ?? '', DEA_DATA_DIR: 'data' };
    const migrate = spawnSync(join(top, 'bin/dea'), ['migrate'], { cwd: work, env, encoding: 'utf8' });
    expect(migrate.stdout, migrate.stderr).toContain(`Made a new embedded store in ${join(work, 'data')}.`);
    const server = spawn(process.execPath, [join(top, 'apps/server/dist/server.js')], {
      cwd: work,
      env: { ...env, PORT: '0', HOST: '127.0.0.1', DEA_SHUTDOWN_DRAIN_SECONDS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const url = /running: (http:\/\/[^\s"]+)\/dea\//.exec(output)?.[1];
        if (url !== undefined) resolve(url);
      };
      server.stdout.on('data', onData);
      server.stderr.on('data', onData);
      server.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect((await fetch(`${base}/dea/`)).status).toBe(200);
      // The OpenAPI document and its pages, from the packages the bundle loads from node_modules.
      const document = (await (await fetch(`${base}/dea/api/docs/json`)).json()) as { openapi?: string };
      expect(document.openapi).toBe('3.1.0');
      // Read whole: an answer left unread keeps its connection busy, and the server's close waits
      // for it up to DEA_IDLE_TIMEOUT_SECONDS (60 s) before it exits.
      const stylesheet = await fetch(`${base}/dea/api/docs/static/swagger-ui.css`);
      expect(stylesheet.status).toBe(200);
      expect(await stylesheet.text()).toContain('.swagger-ui');
    } finally {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 120_000);
});
