import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { CONSOLE_PAGE_PATH, PAGE_BASE_PATH } from '@dea/contract';
import type { FastifyPluginAsync } from 'fastify';

/** Where the build's hashed files are served (apps/web/vite.config.ts: `dea/assets`). */
const ASSETS_PATH = `${PAGE_BASE_PATH}assets/`;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The built page at /dea/, the login application at its path and the console at /admin/, from the
 * web build, sent pre-compressed (brotli or gzip, as the browser accepts). HTML is
 * revalidated on every visit; hashed assets are cached for a year.
 */
export const staticRoutes: FastifyPluginAsync<{ webDir: string; loginPath: string }> = async (
  app,
  options,
) => {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect(PAGE_BASE_PATH, 302));
  const mounts = [
    { prefix: PAGE_BASE_PATH, dir: join(options.webDir, 'dea') },
    { prefix: options.loginPath, dir: join(options.webDir, 'login') },
    { prefix: CONSOLE_PAGE_PATH, dir: join(options.webDir, 'admin') },
  ];
  let decorated = false;
  // The build's hashed files first, a mount of their own: a new build names its files anew, so a
  // browser keeps them a year and never revalidates them. They go without the validators and range
  // header that revalidation and resumed downloads use: about 90 bytes less per file, which on a
  // slow phone network are the journey's (the budget of 100 KB for the whole journey counts the headers).
  const assetsDir = join(options.webDir, 'dea', 'assets');
  if (existsSync(assetsDir)) {
    await app.register(fastifyStatic, {
      root: assetsDir,
      prefix: ASSETS_PATH,
      decorateReply: false,
      cacheControl: false,
      etag: false,
      lastModified: false,
      acceptRanges: false,
      wildcard: true,
      index: false,
      preCompressed: true,
      setHeaders(response) {
        response.setHeader('vary', 'Accept-Encoding');
        response.setHeader('cache-control', IMMUTABLE);
      },
    });
  }
  for (const mount of mounts) {
    if (!existsSync(join(mount.dir, 'index.html'))) {
      app.log.warn({ dir: mount.dir }, 'web build not found: run npm run build');
      continue;
    }
    await app.register(fastifyStatic, {
      root: mount.dir,
      prefix: mount.prefix,
      decorateReply: !decorated,
      // Our own Cache-Control below, not the plugin's 'public, max-age=0' on everything.
      cacheControl: false,
      wildcard: true,
      index: ['index.html'],
      // The build's brotli and gzip copies (apps/web/scripts/precompress.mjs), by Accept-Encoding.
      preCompressed: true,
      setHeaders(response, path) {
        // The same address answers brotli, gzip or plain bytes: caches must key on the encoding.
        response.setHeader('vary', 'Accept-Encoding');
        response.setHeader('cache-control', path.includes(`${'/assets/'}`) ? IMMUTABLE : 'no-cache');
      },
    });
    decorated = true;
  }
};
