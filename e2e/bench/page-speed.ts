/**
 * Speed of the emergency-access page: time from navigation to the code on screen in Chromium
 * with 150 ms of emulated latency on every request, and the gzipped size of the page's
 * JavaScript and CSS. Writes the figures to docs/benchmarks.md (its page section).
 *
 * Run after `npm run build`: `npx tsx e2e/bench/page-speed.ts` (from the repository root).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_LAUNCH_OPTIONS } from '../support/chromium';
import { startServer } from '../support/start-server';

const LATENCY_MS = 150;
const RUNS = 7;
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const assetsDir = join(repositoryRoot, 'apps/web/dist/dea/assets');
const benchmarksFile = join(repositoryRoot, 'docs/benchmarks.md');
const SECTION_TITLE = '## Emergency-access page';

interface Sizes {
  file: string;
  raw: number;
  gzip: number;
}

async function assetSizes(extension: '.js' | '.css'): Promise<Sizes[]> {
  const files = (await readdir(assetsDir)).filter((file) => file.endsWith(extension));
  return Promise.all(
    files.map(async (file) => {
      const content = await readFile(join(assetsDir, file));
      return { file, raw: content.length, gzip: gzipSync(content, { level: 9 }).length };
    }),
  );
}

/** One cold visit: empty cache, fresh tab storage, so the page asks the server for a new code. */
async function timeToCode(browser: Browser, baseUrl: string): Promise<{ total: number; requests: number }> {
  const context = await browser.newContext({ baseURL: baseUrl });
  try {
    const page = await context.newPage();
    const signIn = await page.request.post('/login/api/session', {
      data: { username: 'demo', password: 'demo' },
    });
    if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()}`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: LATENCY_MS,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    // The moment the code is in the document, measured by the page's own clock from navigation start.
    await page.addInitScript(() => {
      const observer = new MutationObserver(() => {
        const code = document.querySelector('[data-testid="emergency-code"]');
        if (code?.textContent) {
          (window as unknown as { codeShownAt: number }).codeShownAt = performance.now();
          observer.disconnect();
        }
      });
      observer.observe(document, { childList: true, subtree: true, characterData: true });
    });
    let requests = 0;
    page.on('request', () => (requests += 1));
    await page.goto('/dea/');
    await page.getByTestId('emergency-code').waitFor();
    const total = await page.evaluate(() => (window as unknown as { codeShownAt: number }).codeShownAt);
    return { total, requests };
  } finally {
    await context.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

async function writeSection(section: string): Promise<void> {
  let document = '# Benchmarks\n\nMeasured on the development machine; figures move with the hardware.\n';
  try {
    document = await readFile(benchmarksFile, 'utf8');
  } catch {
    // First benchmark written: start the file.
  }
  const start = document.indexOf(SECTION_TITLE);
  if (start < 0) {
    document = `${document.trimEnd()}\n\n${section}`;
  } else {
    const next = document.indexOf('\n## ', start + SECTION_TITLE.length);
    document = `${document.slice(0, start)}${section}${next < 0 ? '' : document.slice(next + 1)}`;
  }
  await writeFile(benchmarksFile, `${document.trimEnd()}\n`);
}

async function main(): Promise<void> {
  const js = await assetSizes('.js');
  const css = await assetSizes('.css');
  if (js.length === 0) throw new Error(`No built page in ${assetsDir}: run npm run build first`);
  const server = await startServer({ DEA_CODE_MAX_UNUSED: '100' });
  const browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
  const runs: { total: number; requests: number }[] = [];
  try {
    await timeToCode(browser, server.baseUrl); // warms the server (first catalog read, JIT)
    for (let run = 0; run < RUNS; run += 1) runs.push(await timeToCode(browser, server.baseUrl));
  } finally {
    await browser.close();
    await server.stop();
  }
  const times = runs.map((run) => run.total);
  const jsGzip = js.reduce((sum, file) => sum + file.gzip, 0);
  const cssGzip = css.reduce((sum, file) => sum + file.gzip, 0);
  const date = new Date().toISOString().slice(0, 10);
  const section = [
    SECTION_TITLE,
    '',
    `\`npx tsx e2e/bench/page-speed.ts\` (after \`npm run build\`), ${date}, Chromium headless, ${LATENCY_MS} ms`,
    'emulated latency on every request (CDP `Network.emulateNetworkConditions`), cache disabled, signed',
    `in as \`demo\` (code on screen), ${RUNS} cold visits after one warm-up.`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    `| navigation to code on screen, median | ${Math.round(median(times))} ms | about 900 ms plus transfer (6 round trips) |`,
    `| navigation to code on screen, min / max | ${Math.round(Math.min(...times))} / ${Math.round(Math.max(...times))} ms | |`,
    `| requests per visit | ${runs[0]?.requests ?? 0} | |`,
    `| JavaScript, gzipped (raw) | ${kb(jsGzip)} (${kb(js.reduce((sum, file) => sum + file.raw, 0))}) | under 110 KB |`,
    `| CSS, gzipped (raw) | ${kb(cssGzip)} (${kb(css.reduce((sum, file) => sum + file.raw, 0))}) | under 15 KB |`,
    '',
    'The requests run in five waves of one latency each: the page; its script and stylesheet; user',
    'info, language list and branding together; user locale and policy together; texts and the new',
    'code together.',
    '',
  ].join('\n');
  await writeSection(section);
  process.stdout.write(`${section}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
