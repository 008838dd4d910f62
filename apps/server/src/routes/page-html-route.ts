import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import {
  PAGE_BASE_PATH,
  PAGE_STARTUP_ELEMENT_ID,
  REMEMBERED_DEVICE_COOKIE_NAME,
  type PageStartupAnswers,
} from '@dea/contract';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { pageStartupAnswers } from '../domain/page/page-startup-answers.js';
import { sessionIdOf } from '../http/cookies.js';
import { jsonForHtml } from './json-for-html.js';
import { lowPriorityScripts, withLoadingState } from './first-paint.js';
import { pageWithoutSessionHtml } from './page-without-session.js';

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);
/** Brotli at quality 5: most of quality 11's gain for a few kilobytes at a fraction of its time. */
const BROTLI_OPTIONS = { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } };
/**
 * Brotli at quality 11, for HTML the same for everyone who asks: about 10% smaller (the login
 * form's 1,153 bytes 1,039, the page's HTML without a session 860 bytes 765) for some
 * 7 ms, spent once per distinct HTML, whose compressed bytes are kept.
 */
const BROTLI_KEPT_OPTIONS = { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } };
/** Kept compressed HTMLs: a language's login form per branding, the page without answers. */
const KEPT_HTML_LIMIT = 64;
const keptHtml = new Map<string, Buffer>();

async function compressedHtml(
  html: string,
  encoding: 'br' | 'gzip',
  sameForEveryone: boolean,
): Promise<Buffer> {
  if (!sameForEveryone) return encoding === 'br' ? compressBrotli(html, BROTLI_OPTIONS) : compressGzip(html);
  const key = `${encoding}\n${html}`;
  const kept = keptHtml.get(key);
  if (kept !== undefined) return kept;
  const body = encoding === 'br' ? await compressBrotli(html, BROTLI_KEPT_OPTIONS) : await compressGzip(html);
  if (keptHtml.size >= KEPT_HTML_LIMIT) keptHtml.delete(keptHtml.keys().next().value ?? '');
  keptHtml.set(key, body);
  return body;
}

/**
 * The page's HTML with its startup answers as a data block at the end of the body, painting the
 * spec's loading state in the language of their texts before the scripts run (first-paint.ts).
 */
export function pageHtmlWith(template: string, answers: PageStartupAnswers | undefined): string {
  if (answers === undefined) return template;
  const block = `<script type="application/json" id="${PAGE_STARTUP_ELEMENT_ID}">${jsonForHtml(answers)}</script>`;
  return withLoadingState(template.replace('</body>', `${block}\n  </body>`), answers);
}

/**
 * The page's HTML for this request: with the startup answers for the signed-in user; with no
 * session at all (spec section 8's 403), the page that goes straight to the login application
 * (page-without-session.ts); as built for an expired session (the page's calls then meet the 401)
 * or when the session or the answers cannot be read now (the page's calls then answer the failure
 * themselves).
 */
async function htmlFor(request: FastifyRequest, template: string, withoutSession: string): Promise<string> {
  const { services } = request.server;
  try {
    const session = await services.sessions.resolve(sessionIdOf(request), services.now());
    if (session.state === 'none') return withoutSession;
    if (session.state !== 'active') return template;
    return pageHtmlWith(
      template,
      await pageStartupAnswers(services, {
        user: session.user,
        acceptLanguage: request.headers['accept-language'],
        clientAddress: request.ip,
        deviceCookie: request.cookies[REMEMBERED_DEVICE_COOKIE_NAME],
      }),
    );
  } catch (error) {
    request.log.warn(
      { cause: (error as Error).message },
      'page sent without its startup answers: they could not be read; the page asks for them itself',
    );
    return template;
  }
}

/**
 * Sends `html` brotli or gzip compressed when the browser accepts it; `sameForEveryone` (nothing in
 * it depends on who asks) compressed once, at brotli's best, and kept.
 */
export async function sendHtml(
  request: FastifyRequest,
  reply: FastifyReply,
  html: string,
  sameForEveryone = false,
): Promise<FastifyReply> {
  const header = request.headers['accept-encoding'];
  const encoding = typeof header === 'string' ? negotiate(header, ['br', 'gzip']) : undefined;
  void reply
    .type('text/html; charset=utf-8')
    // It holds the signed-in user's details: never kept by the browser or a cache.
    .header('cache-control', 'no-store')
    .header('vary', 'Accept-Encoding, Accept-Language, Cookie');
  if (encoding === 'br' || encoding === 'gzip') {
    const body = await compressedHtml(html, encoding, sameForEveryone);
    return reply.header('content-encoding', encoding).send(body);
  }
  return reply.send(html);
}

/**
 * The emergency-access page's HTML at /dea/ (and /dea/index.html): the built page with the answers
 * of its startup calls for the signed-in user, so a phone waits for one round trip fewer
 * per call; with no session, HTML that sends the browser to the login application before it
 * fetches any of the page's files. Registered before the static files, which serve
 * everything else under /dea/.
 */
export const pageHtmlRoute: FastifyPluginAsync<{ webDir: string; loginPath: string }> = async (
  app,
  options,
) => {
  const file = join(options.webDir, 'dea', 'index.html');
  if (!existsSync(file)) return; // static-routes.ts warns that the build is missing
  const built = await readFile(file, 'utf8');
  if (!built.includes('</body>')) throw new Error(`${file} has no </body>: rebuild the page (npm run build)`);
  const withoutSession = pageWithoutSessionHtml(built, options.loginPath);
  const template = lowPriorityScripts(built);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const html = await htmlFor(request, template, withoutSession);
    // Without answers (no session, or none could be read) it is the same for everyone.
    return sendHtml(request, reply, html, html === withoutSession || html === template);
  };
  app.get(PAGE_BASE_PATH, { schema: { hide: true } }, handler);
  app.get(`${PAGE_BASE_PATH}index.html`, { schema: { hide: true } }, handler);
};
