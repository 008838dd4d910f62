import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PAGE_PREFETCH_ELEMENT_ID, type PageStartupAnswers } from '@dea/contract';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { loginStartupAnswers } from '../domain/page/page-startup-answers.js';
import { lowPriorityScripts } from './first-paint.js';
import { jsonForHtml } from './json-for-html.js';
import { pageHtmlWith, sendHtml } from './page-html-route.js';
import { pageFilesOf } from './page-without-session.js';

/**
 * The page's files that the login application's HTML does not load itself, as a data block the
 * login application reads once it is idle, to have the browser prefetch them while the person types,
 * so the page after sign-in finds them in its cache. Not as prefetch tags: the browser
 * would fetch those at once, beside the files the login form needs.
 */
export function withPagePrefetch(loginTemplate: string, pageTemplate: string | undefined): string {
  if (pageTemplate === undefined) return loginTemplate;
  const addresses = pageFilesOf(pageTemplate)
    .map((file) => file.attributes.src ?? file.attributes.href)
    .filter((url): url is string => url !== undefined && !loginTemplate.includes(`"${url}"`));
  if (addresses.length === 0) return loginTemplate;
  const block = `<script type="application/json" id="${PAGE_PREFETCH_ELEMENT_ID}">${jsonForHtml(addresses)}</script>`;
  return loginTemplate.replace('</body>', `${block}\n  </body>`);
}

async function answersFor(request: FastifyRequest): Promise<PageStartupAnswers | undefined> {
  try {
    return await loginStartupAnswers(request.server.services, request.headers['accept-language']);
  } catch (error) {
    request.log.warn(
      { cause: (error as Error).message },
      'login application sent without its startup answers: they could not be read; it asks for them itself',
    );
    return undefined;
  }
}

/**
 * The login application's HTML at DEA_LOGIN_PATH (and its index.html): the built one with the
 * answers of its startup calls (languages, branding, texts) and prefetch hints for the page that
 * follows sign-in, so a phone waits for neither after the HTML. Registered before the static files,
 * which serve the rest.
 */
export const loginHtmlRoute: FastifyPluginAsync<{ webDir: string; loginPath: string }> = async (
  app,
  options,
) => {
  const file = join(options.webDir, 'login', 'index.html');
  if (!existsSync(file)) return; // static-routes.ts warns that the build is missing
  const pageFile = join(options.webDir, 'dea', 'index.html');
  const template = lowPriorityScripts(
    withPagePrefetch(
      await readFile(file, 'utf8'),
      existsSync(pageFile) ? await readFile(pageFile, 'utf8') : undefined,
    ),
  );
  if (!template.includes('</body>'))
    throw new Error(`${file} has no </body>: rebuild the login application (npm run build)`);
  const handler = async (request: FastifyRequest, reply: FastifyReply) =>
    // Its answers depend on the browser's language and the branding, not on who asks.
    sendHtml(request, reply, pageHtmlWith(template, await answersFor(request)), true);
  app.get(options.loginPath, { schema: { hide: true } }, handler);
  app.get(`${options.loginPath}index.html`, { schema: { hide: true } }, handler);
};
