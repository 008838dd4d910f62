import { RETURN_ENDPOINT_PARAM, USERNAME_PARAM } from '@dea/contract';

/** The base login application (DESIGN section 1); the server's default DEA_LOGIN_PATH. */
export const LOGIN_PAGE_PATH = '/login/';

/** The page's own folder: its path without a trailing file name or slash ('/dea/' -> '/dea'). */
function pageFolder(pathname: string): string {
  return pathname.replace(/\/index\.html$/, '').replace(/\/+$/, '');
}

/** Current origin and path plus '/logout' (spec sections 2 and 8), never with a doubled slash. */
export function logoutUrl(location: Pick<Location, 'origin' | 'pathname'>): string {
  return `${location.origin}${pageFolder(location.pathname)}/logout`;
}

/** The login application with the stored user name (when there is one) and the return endpoint. */
export function loginUrl(location: Pick<Location, 'origin' | 'href'>, username: string | undefined): string {
  const url = new URL(LOGIN_PAGE_PATH, location.origin);
  if (username) url.searchParams.set(USERNAME_PARAM, username);
  url.searchParams.set(RETURN_ENDPOINT_PARAM, location.href);
  return url.href;
}
