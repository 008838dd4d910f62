import {
  CHANNEL_DELIVERY_MODE,
  CODE_COUNT_PER_REQUEST,
  PAGE_CALLS,
  choosePageLanguage,
  messageFileName,
  pageCallKey,
  storedLanguage,
  type CreateCodeRequest,
  type PageCall,
  type PolicyOptions,
} from '@dea/contract';
import { callServer } from '../api/call-server';
import { startupAnswersInDocument } from '../api/startup-answers';
import { readChosenLanguage } from '../features/language/language-storage';
import { readStoredCode, storeCode } from '../shared/code-storage';
import { envelopeOf, isFailedEnvelope, setCallLanguage, type JsonAnswer } from '../shared/fetch/fetch-core';
import { serverLocale } from '../shared/i18n/server-locale';
import { parseHash } from './parse-hash';

/**
 * Whether the page shows its code on screen, and so asks for one as soon as its policy is in
 * (spec section 4): emergency codes allowed, and not sent by channel.
 */
export function showsCodeOnScreen(options: PolicyOptions | undefined): boolean {
  return options?.enableECode === true && options.emergencyCodeDelivery !== CHANNEL_DELIVERY_MODE;
}

/** The body of tempPass/create as the page sends it (spec section 7). */
export function createCodeRequest(userId: string, locale: string): CreateCodeRequest {
  return {
    count: CODE_COUNT_PER_REQUEST,
    return: ['id', 'password'],
    attrs: { user: { id: userId }, locale },
  };
}

/**
 * When a code issued now stops working (ms since the epoch), from the policy's validity;
 * `undefined` when the policy does not say.
 */
export function codeExpiry(validityMinutes: number | undefined, now = Date.now()): number | undefined {
  return validityMinutes === undefined ? undefined : now + validityMinutes * 60_000;
}

/** The code in an answer of tempPass/create, `undefined` when it holds none (a failure, another shape). */
export function codeOfAnswer(answer: JsonAnswer): { id: string; password: string } | undefined {
  if (!answer.ok) return undefined;
  const row: unknown = (resultOf(answer.body)?.rows as unknown[] | undefined)?.[0];
  if (!isDictionary(row)) return undefined;
  const { id, password } = row as { id?: unknown; password?: unknown };
  return typeof id === 'string' && typeof password === 'string' && password !== ''
    ? { id, password }
    : undefined;
}

/** An envelope's result, `undefined` when `answer` is none or a failure. */
function resultOf(answer: unknown): Record<string, unknown> | undefined {
  const envelope = envelopeOf(answer);
  if (envelope === undefined || isFailedEnvelope(envelope)) return undefined;
  const { result } = envelope;
  return typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : undefined;
}

const isDictionary = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The tempPass/create that the page's startup (spec section 4, main-page.tsx) will send at once,
 * decided from the answers delivered with its HTML (`answerOf`) as that startup would take them:
 * on the main route, with no code kept in the tab, for the user of user info, in the language
 * chosen from the list, the stored choice or the user's locale and the browser's language, whose
 * texts came with the page, under a policy that shows codes on screen. `undefined` when the page
 * would not ask for a code, or would first make a call whose answer did not come with it.
 */
export function codeRequestOnLoad(
  answerOf: (call: PageCall) => unknown,
  where: { hash: string; search: string; browserLanguage: string },
): { body: CreateCodeRequest; language: string; validityMinutes: number | undefined } | undefined {
  if (parseHash(where.hash, where.search).route.name !== 'main' || readStoredCode() !== undefined)
    return undefined;
  const user = answerOf(PAGE_CALLS.userInfo());
  const userId = isDictionary(user) ? (user as { userId?: unknown }).userId : undefined;
  if (typeof userId !== 'string') return undefined;
  const list = envelopeOf(answerOf(PAGE_CALLS.languageList()))?.result;
  if (!Array.isArray(list)) return undefined;
  const stored = readChosenLanguage();
  let userLocale: string | undefined;
  if (storedLanguage(stored, list) === undefined) {
    // The page asks for the user's locale first; a failed answer leaves it out of the choice.
    const answer = answerOf(PAGE_CALLS.userLocale(userId));
    if (answer === undefined) return undefined;
    const locale = resultOf(answer)?.userLocale;
    userLocale = typeof locale === 'string' ? locale : undefined;
  }
  const language = choosePageLanguage({ stored, userLocale, browserLanguage: where.browserLanguage }, list);
  if (!isDictionary(answerOf(PAGE_CALLS.messages(messageFileName(language))))) return undefined;
  const policy = resultOf(answerOf(PAGE_CALLS.policy(userId)))?.options as PolicyOptions | undefined;
  if (!showsCodeOnScreen(policy)) return undefined;
  return {
    body: createCodeRequest(userId, serverLocale(language)),
    language,
    validityMinutes: policy?.codeValidityMinutes,
  };
}

/** Where the code asked for beside the scripts waits for the page (one window, two bundles). */
const HANDED_OVER = '__deaCodeAskedOnLoad';

interface CodeAskedOnLoad {
  body: CreateCodeRequest;
  answer: Promise<JsonAnswer>;
}

type WithCodeAskedOnLoad = Window & { [HANDED_OVER]?: CodeAskedOnLoad };

/**
 * Run by the page's small first script (entries/dea/code-on-load.ts) while the page's
 * scripts are still downloading: when the answers delivered with the HTML say that the startup
 * will ask for a code at once, asks for it now, exactly as the page would (callServer, in the
 * language the page will speak), keeps the code in the tab's storage when it comes, and leaves the
 * call for the page to take instead of sending its own. Anything else, nothing.
 */
export function askCodeOnLoad(): void {
  const answers = startupAnswersInDocument();
  if (answers === undefined) return;
  const decided = codeRequestOnLoad((call) => answers[pageCallKey(call)], {
    hash: window.location.hash,
    search: window.location.search,
    browserLanguage: navigator.language,
  });
  if (decided === undefined) return;
  setCallLanguage(decided.language);
  const answer = callServer('tempPass/create', { method: 'POST', body: decided.body });
  // The code is kept in the tab as soon as it comes, as the page keeps its own (spec section 4):
  // when the page's scripts fail to load or to start, it is not lost, a reload asks for no other
  // (codeRequestOnLoad finds it kept) and the page shows it once it can. Its failure is the
  // page's to report, once it takes the call.
  answer.then(
    (arrived) => {
      const code = codeOfAnswer(arrived);
      if (code !== undefined) storeCode(code, codeExpiry(decided.validityMinutes));
    },
    () => undefined,
  );
  (window as WithCodeAskedOnLoad)[HANDED_OVER] = { body: decided.body, answer };
}

/**
 * The code's call already sent by askCodeOnLoad, for exactly this body (taken once); `undefined`
 * when none was sent or it was for another user or language.
 */
export function takeCodeAskedOnLoad(body: CreateCodeRequest): Promise<JsonAnswer> | undefined {
  const holder = window as WithCodeAskedOnLoad;
  const asked = holder[HANDED_OVER];
  if (asked === undefined) return undefined;
  delete holder[HANDED_OVER];
  return JSON.stringify(asked.body) === JSON.stringify(body) ? asked.answer : undefined;
}
