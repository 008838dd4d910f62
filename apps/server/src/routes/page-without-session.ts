import { createHash } from 'node:crypto';
import { RETURN_ENDPOINT_PARAM, SESSION_STORAGE_KEYS, USERNAME_PARAM } from '@dea/contract';
import { jsonForHtml } from './json-for-html.js';

/** The id of the data block naming the login path and the page's files, for the script below. */
export const PAGE_FILES_ELEMENT_ID = 'dea-page-files';

/**
 * Spec section 8's rule for HTTP 403, as the page applies it (apps/web/src/api/session-redirect.ts),
 * run by the page's HTML itself when the server already knows there is no session: while
 * online and not on the logout landing, the stored code is forgotten and the browser goes to the
 * login application with the user name kept in the tab's session storage (when there is one) and
 * the page's address, hash included, as `ep`. Otherwise the page's own files are loaded and the
 * page starts as before (its calls then meet the same rules). Only the browser can see the hash and
 * the session storage, so a plain HTTP redirect could not build the same address.
 */
export const PAGE_WITHOUT_SESSION_SCRIPT = `(function () {
  var d = document;
  var data = JSON.parse(d.getElementById(${JSON.stringify(PAGE_FILES_ELEMENT_ID)}).textContent);
  var hash = location.hash.replace(/^#/, '');
  var mark = hash.indexOf('?');
  var route = (mark < 0 ? hash : hash.slice(0, mark)).replace(/^\\/+|\\/+$/g, '');
  if (navigator.onLine && route !== 'logoutLanding') {
    var username = null;
    try {
      username = sessionStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEYS.username)});
      ${JSON.stringify([SESSION_STORAGE_KEYS.emergencyCode, SESSION_STORAGE_KEYS.emergencyCodeId, SESSION_STORAGE_KEYS.emergencyCodeExpiresAt])}.forEach(function (key) {
        sessionStorage.removeItem(key);
      });
    } catch (error) {}
    var url = new URL(data.loginPath, location.origin);
    if (username) url.searchParams.set(${JSON.stringify(USERNAME_PARAM)}, username);
    url.searchParams.set(${JSON.stringify(RETURN_ENDPOINT_PARAM)}, location.href);
    location.assign(url.href);
    return;
  }
  data.files.forEach(function (file) {
    var element = d.createElement(file.tag);
    for (var name in file.attributes) element.setAttribute(name, file.attributes[name]);
    d.head.appendChild(element);
  });
})();`;

/** The script's hash for the Content-Security-Policy, which allows no other inline script. */
export const PAGE_WITHOUT_SESSION_SCRIPT_HASH = `'sha256-${createHash('sha256').update(PAGE_WITHOUT_SESSION_SCRIPT).digest('base64')}'`;

export interface PageFile {
  tag: 'script' | 'link';
  attributes: Record<string, string>;
}

/** The page's own files in its HTML head: module scripts, module preloads and style sheets. */
const FILE_TAG =
  /<script\b[^>]*\btype="module"[^>]*><\/script>\s*|<link\b[^>]*\brel="(?:modulepreload|stylesheet)"[^>]*>\s*/g;

function attributesOf(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const inside = tag.replace(/^<\w+/, '').replace(/\/?>[\s\S]*$/, '');
  for (const [, name, value] of inside.matchAll(/([a-zA-Z][\w-]*)(?:="([^"]*)")?/g))
    if (name !== undefined) attributes[name] = value ?? '';
  return attributes;
}

/** The page's file tags in its HTML head, in their order. */
export function pageFilesOf(template: string): PageFile[] {
  return [...template.matchAll(FILE_TAG)].map(([tag]) => ({
    tag: tag.startsWith('<script') ? 'script' : 'link',
    attributes: attributesOf(tag),
  }));
}

/**
 * The page's HTML for a request with no session: its files' tags taken out of the head (so the
 * browser fetches none of them), replaced by a data block naming them and the login path, and the
 * script above, which either goes to the login application or loads them.
 */
export function pageWithoutSessionHtml(template: string, loginPath: string): string {
  const files = pageFilesOf(template);
  const head = template.replace(FILE_TAG, '');
  const block =
    `<script type="application/json" id="${PAGE_FILES_ELEMENT_ID}">${jsonForHtml({ loginPath, files })}</script>` +
    `<script>${PAGE_WITHOUT_SESSION_SCRIPT}</script>\n  `;
  return head.replace('</head>', `${block}</head>`);
}
