#!/usr/bin/env node
// Writes a brotli (.br) and a gzip (.gz) copy beside every text file of the build that gains from
// it, so the server sends the smallest one the browser accepts (@fastify/static preCompressed)
// without compressing on each request. Run by `npm run build` after `vite build`.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;
/**
 * A compressed copy is kept when it is smaller by more than the `content-encoding: br` line it
 * adds to the answer (about 24 bytes): small chunks of a few hundred bytes gain too.
 */
const HEADER_BYTES = 32;

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (COMPRESSIBLE.test(entry.name)) yield path;
  }
}

let count = 0;
let before = 0;
let after = 0;
for await (const path of files(dist)) {
  const content = await readFile(path);
  const brotli = brotliCompressSync(content, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
    },
  });
  const gzip = gzipSync(content, { level: 9 });
  if (brotli.length + HEADER_BYTES >= content.length) continue;
  await writeFile(`${path}.br`, brotli);
  if (gzip.length + HEADER_BYTES < content.length) await writeFile(`${path}.gz`, gzip);
  count += 1;
  before += content.length;
  after += brotli.length;
}
console.log(
  `precompressed ${count} files: ${(before / 1024).toFixed(1)} KiB -> ${(after / 1024).toFixed(1)} KiB (brotli)`,
);
