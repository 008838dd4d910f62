import { RETURN_ENDPOINT_PARAM, USERNAME_PARAM } from '@dea/contract';

/** The base login application (DESIGN section 1); the server's default DEA_LOGIN_PATH. */
export const LOGIN_PAGE_PATH = '/login/';

/** The same shape DEA_LOGIN_PATH must have: a path on this origin, never another host. */
const LOGIN_PATH_SHAPE = /^\/([A-Za-z0-9._~-]+\/)*$/;

/** The login path the server named in its 403 answer, when it is one; else the default. */
export function loginPathOf(answer: unknown): string {
  const path = (answer as { result?: { loginPath?: unknown } } | null)?.result?.loginPath;
  return typeof path === 'string' && LOGIN_PATH_SHAPE.test(path) ? path : LOGIN_PAGE_PATH;
}

/** The page's own folder: its path without a trailing file name or slash ('/dea/' -> '/dea'). */
function pageFolder(pathname: string): string {
  return pathname.replace(/\/index\.html$/, '').replace(/\/+$/, '');
}

/**
 * Current origin and path plus '/logout' (spec sections 2 and 8), never with a doubled slash. The
 * channels page (/dea/channels/) lives in the page's folder and leaves through the page's logout.
 */
export function logoutUrl(location: Pick<Location, 'origin' | 'pathname'>): string {
  return `${location.origin}${pageFolder(location.pathname).replace(/\/channels$/, '')}/logout`;
}

/** The login application with the stored user name (when there is one) and the return endpoint. */
export function loginUrl(
  location: Pick<Location, 'origin' | 'href'>,
  username: string | undefined,
  loginPath: string = LOGIN_PAGE_PATH,
): string {
  const url = new URL(loginPath, location.origin);
  if (username) url.searchParams.set(USERNAME_PARAM, username);
  url.searchParams.set(RETURN_ENDPOINT_PARAM, location.href);
  return url.href;
}
