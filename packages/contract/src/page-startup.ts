import type { ChannelsRequest, PolicyRequest, UserGetRequest } from './api.js';
import { CHANNEL_QUERY_ACTION, DEFAULT_LANGUAGE, POLICY_CATEGORY_SELF_SERVICE } from './constants.js';
import { langParamOfMessageFile } from './languages.js';
import type { Language } from './api.js';

/**
 * The page's startup calls (spec sections 4 and 7), as the page makes them, and the answers the
 * server delivers with the page's HTML so the browser need not wait for them.
 *
 * The server answers a call in advance only as its route would answer it with HTTP 200; the page
 * takes such an answer, once, for exactly the call it describes (method, path, query and body) and
 * makes the call itself for anything else. The routes of section 7 stay as they are.
 */

/** The id of the HTML data block (`<script type="application/json">`) holding the startup answers. */
export const PAGE_STARTUP_ELEMENT_ID = 'dea-startup';

/**
 * The id of the login application's data block (a JSON list of addresses) naming the page's files
 * it does not load itself; it asks the browser to prefetch them once idle.
 */
export const PAGE_PREFETCH_ELEMENT_ID = 'dea-page-prefetch';

/** One call under the API base path, as the page sends it. */
export interface PageCall {
  method: 'GET' | 'POST';
  /** Relative to the API base path: 'userinfo', 'user/get'. */
  path: string;
  query?: Readonly<Record<string, string | undefined>>;
  body?: unknown;
}

/** Answers by call key (`pageCallKey`): the body the route answers with HTTP 200. */
export type PageStartupAnswers = Record<string, unknown>;

/** The page's startup calls, one builder each, used by the page to call and by the server to answer. */
export const PAGE_CALLS = {
  userInfo: (): PageCall => ({ method: 'POST', path: 'userinfo', body: {} }),
  languageList: (): PageCall => ({ method: 'GET', path: 'resourceFile/getLanguageList' }),
  userLocale: (userId: string): PageCall => ({
    method: 'POST',
    path: 'user/get',
    body: {
      match: [{ field: 'id', op: 'eq', value: userId }],
      return: ['id', 'userLocale'],
    } satisfies UserGetRequest,
  }),
  /** By message file name ('messages', 'messages_de'): `messageFileName(languageCode)`. */
  messages: (messageFile: string): PageCall => ({
    method: 'GET',
    path: 'message',
    query: { lang: langParamOfMessageFile(messageFile) },
  }),
  branding: (): PageCall => ({ method: 'POST', path: 'customizationConfig/getCurrentConfig', body: {} }),
  policy: (userId: string): PageCall => ({
    method: 'POST',
    path: 'user/getPolicy',
    body: {
      user: { id: userId },
      category: { name: POLICY_CATEGORY_SELF_SERVICE },
      return: ['options'],
    } satisfies PolicyRequest,
  }),
  availableChannels: (userId: string): PageCall => ({
    method: 'POST',
    path: 'user/queryAvailableChannels',
    body: { action: CHANNEL_QUERY_ACTION, user: { id: userId } } satisfies ChannelsRequest,
  }),
} as const;

/**
 * What identifies a call among the startup answers: method, path, query (without empty values) and,
 * for calls with a body, the body as JSON.
 */
export function pageCallKey(call: PageCall): string {
  const query = new URLSearchParams(
    Object.entries(call.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  const target = `${call.method} ${call.path}${query === '' ? '' : `?${query}`}`;
  return call.method === 'GET' ? target : `${target} ${JSON.stringify(call.body ?? {})}`;
}

/** What the page chooses its language from (spec section 4). */
export interface LanguageCandidates {
  /** The user's own choice, kept in local storage. */
  stored: string | undefined;
  /** The user's locale from user/get ('de', 'pt_BR', 'de-AT'). */
  userLocale: string | undefined;
  /** The browser's language (navigator.language; the first of Accept-Language for the server). */
  browserLanguage: string | undefined;
}

const normalize = (code: string): string => code.trim().replace(/-/g, '_').toLowerCase();
const primaryOf = (code: string): string => normalize(code).split('_')[0] ?? '';

function findExact(code: string | undefined, available: readonly Language[]): string | undefined {
  if (!code) return undefined;
  return available.find((language) => normalize(language.languageCode) === normalize(code))?.languageCode;
}

function findByPrimary(code: string | undefined, available: readonly Language[]): string | undefined {
  if (!code) return undefined;
  const primary = primaryOf(code);
  return (
    available.find((language) => normalize(language.languageCode) === primary) ??
    available.find((language) => primaryOf(language.languageCode) === primary)
  )?.languageCode;
}

/** The stored choice when the list offers it; spec section 4, priority (1). */
export function storedLanguage(
  stored: string | undefined,
  available: readonly Language[],
): string | undefined {
  return findExact(stored, available);
}

/**
 * The page's language, spec section 4: (1) the language stored locally, (2) the user's locale
 * matched against the list, (3) the browser language matched by its primary part, (4) 'en'.
 */
export function choosePageLanguage(candidates: LanguageCandidates, available: readonly Language[]): string {
  return (
    storedLanguage(candidates.stored, available) ??
    findExact(candidates.userLocale, available) ??
    findByPrimary(candidates.userLocale, available) ??
    findByPrimary(candidates.browserLanguage, available) ??
    DEFAULT_LANGUAGE
  );
}
