import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltInContent } from './seed/built-in-content.js';
import { openStore } from './store/open-store.js';
import { docsPages, GUIDE_PAGES, guidesText, NOT_GUIDES, REPOSITORY } from './testing/guide-pages.js';

/** The guide pages of docs/, one after the other (the README's sections, moved there). */
const README = guidesText();

/** Every command line of the guides' sh blocks that runs `npx dea`, continuation lines joined. */
function readmeCliExamples(): string[] {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .filter((line) => /(^|\| )npx dea /.test(line));
}

/** The guides' code block of that language following the mention of the file. */
function readmeBlock(language: string, fileName: string): string {
  const match = new RegExp(
    `\`${fileName.replace('.', '\\.')}\`:\\n\\n\`\`\`${language}\\n([\\s\\S]*?)\`\`\``,
  ).exec(README);
  if (match?.[1] === undefined) throw new Error(`the guides show no ${language} block for ${fileName}`);
  return match[1];
}

/**
 * What `npx dea` resolves to in the guides' folder, without npx: the checkout's own `dea` linked
 * in node_modules/.bin (npx adds that folder to PATH and runs the bin; the test "npx finds the
 * checkout's dea" below proves it does). npx itself costs 0.4 CPU-seconds a line, more than most
 * `dea` commands (0.2), so every line but the first runs `dea` directly; any other npx goes to npx.
 */
const NPX_DEA =
  'npx() { if [ "$1" = dea ]; then shift; node_modules/.bin/dea "$@"; else command npx "$@"; fi; }';

/** Runs until Ctrl-C by design; the CLI's own tests cover it. */
const RUNS_UNTIL_INTERRUPTED = /npx dea audit follow/;

/**
 * The guides' CLI examples (docs/, GUIDE_PAGES), run exactly as written with bash, `npx dea` and
 * all, in the order the guides give them, on a store of their own. The working folder sees the repository's
 * node_modules (as the repository root does), so `npx` finds the checkout's own `dea` and never
 * asks the registry (--no-install would fail the line instead).
 */
describe("the guides' dea examples", () => {
  let folder: string;
  const env = { ...process.env };
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'dea-readme-'));
    symlinkSync(join(REPOSITORY, 'node_modules'), join(folder, 'node_modules'));
    writeFileSync(join(folder, 'package.json'), '{"private":true}');
    writeFileSync(join(folder, 'bob.password'), 'a password for bob\n', { mode: 0o600 });
    writeFileSync(join(folder, 'new.password'), 'a new password for bob\n', { mode: 0o600 });
    writeFileSync(join(folder, 'brand.css'), '.card { border-color: #036; }\n');
    writeFileSync(
      join(folder, 'logo.png'),
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
        'base64',
      ),
    );
    // The import files are the guides' own examples.
    writeFileSync(join(folder, 'people.csv'), readmeBlock('csv', 'people.csv'));
    writeFileSync(join(folder, 'people.json'), readmeBlock('json', 'people.json'));
    writeFileSync(join(folder, 'pt_BR.json'), JSON.stringify({ 'content.title': 'Código de emergência' }));
    Object.assign(env, {
      DEA_DATA_DIR: join(folder, 'data'),
      DEA_SECRET: Buffer.alloc(32, 11).toString('base64'),
      DEA_PASSWORD_HASH_COST: '10',
      DATABASE_URL: '',
      DEA_CONSOLE_URL: 'https://dea.example.com/admin/',
      npm_config_offline: 'true',
      npm_config_yes: 'false',
    });
    // The CLI never creates a store: the server's first start does. This is that start's store.
    const store = await openStore({ dataDir: join(folder, 'data') });
    await ensureBuiltInContent(store);
    await store.close();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('has examples to run', () => {
    expect(readmeCliExamples().length).toBeGreaterThan(30);
  });

  it('runs the commands of every guide page: each page of docs/ is a guide or the reference', () => {
    const pages = docsPages().filter((page) => !NOT_GUIDES.test(page));
    expect([...pages].sort()).toEqual([...GUIDE_PAGES].sort());
  });

  it("npx finds the checkout's dea in the guides' folder, as the lines run it without npx", () => {
    const result = spawnSync('npx', ['-c', 'command -v dea'], { cwd: folder, env, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(join(folder, 'node_modules/.bin/dea'));
  });

  // One test per line, in the guides' order (a file's tests run one after another): each has the
  // suite's deadline of its own, where one deadline for all of them failed on a loaded machine.
  // The first line runs through npx itself, the others through NPX_DEA.
  it.each(
    readmeCliExamples()
      .filter((line) => !RUNS_UNTIL_INTERRUPTED.test(line))
      .map((line, index) => [line, index === 0] as const),
  )(
    'runs %s as written, ending with exit code 0',
    (line, throughNpx) => {
      const script = throughNpx ? line : `${NPX_DEA}\n${line}`;
      // spawnSync holds the thread: its own bound stops a line that hangs, within the test's.
      const result = spawnSync('bash', ['-c', script], {
        cwd: folder,
        env,
        encoding: 'utf8',
        timeout: 50_000,
      });
      expect(result.status, `exit ${result.status}: ${result.stderr.trim()}`).toBe(0);
    },
    60_000,
  );

  it("prints a console account's enrolment link, a full address of the console, with dea admin reset-passkeys", () => {
    const line = readmeCliExamples().find((example) => example.startsWith('npx dea admin reset-passkeys'));
    expect(line).toBeDefined();
    const result = spawnSync('bash', ['-c', `${NPX_DEA}\n${line ?? 'false'}`], {
      cwd: folder,
      env,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^https:\/\/dea\.example\.com\/admin\/#enrol=[A-Za-z0-9_-]{43}$/m);
  });
});
