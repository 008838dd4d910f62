import {
  LOGIN_TEXT_KEYS,
  isPageTextKey,
  PAGE_CALLS,
  POLICY_CATEGORY_SELF_SERVICE,
  choosePageLanguage,
  langParamOfMessageFile,
  messageFileName,
  okEnvelope as ok,
  pageCallKey,
  type PageCall,
  type PageStartupAnswers,
} from '@dea/contract';
import type { User } from '../../store/store.js';
import type { Catalogs } from '../texts/catalogs.js';
import type { ChannelRules } from '../channels/channel-rules.js';
import { acceptedLanguages } from '../texts/language.js';
import {
  availableChannels,
  currentBranding,
  policyAnswer,
  userFieldsOf,
  userInfoOf,
  type PageServices,
} from './page-answers.js';
import { sendsByChannel } from '../policies/policy.js';

export interface PageStartupRequest {
  user: User;
  /** The page request's Accept-Language: its first language is the browser's (navigator.language). */
  acceptLanguage: string | undefined;
  clientAddress: string | null;
  /** The remembered-device cookie the page's request carries (screen-code-trust.ts). */
  deviceCookie: string | undefined;
}

/**
 * What the page's startup calls (spec section 4) answer for a signed-in user, delivered with the
 * page so the browser need not wait for them: user, languages, the user's locale,
 * branding, the self-service policy, the texts of the language the page will choose unless a choice
 * is stored in the browser (those the page shows: the contract's isPageTextKey), and the channels
 * when codes go by channel. Each answer is what its route
 * answers (page-answers.ts); codes are never created here.
 */
export async function pageStartupAnswers(
  services: PageServices & { catalogs: Catalogs; channelRules: ChannelRules },
  { user, acceptLanguage, clientAddress, deviceCookie }: PageStartupRequest,
): Promise<PageStartupAnswers> {
  const request = { clientAddress, deviceCookie };
  const [languages, branding, policyAnswered] = await Promise.all([
    services.catalogs.languages(),
    currentBranding(services.store),
    policyAnswer(services, user.id, POLICY_CATEGORY_SELF_SERVICE, request),
  ]);
  const policy = policyAnswered.options;
  const messageFile = messageFileName(
    choosePageLanguage(
      {
        stored: undefined,
        userLocale: user.locale ?? undefined,
        browserLanguage: acceptedLanguages(acceptLanguage)[0],
      },
      languages,
    ),
  );
  // GET message answers the catalog its route chooses for ?lang; the page's HTML carries only the
  // texts the page shows (the contract's isPageTextKey), about half of it.
  const catalog: Readonly<Record<string, string>> = await services.catalogs.dictionary(
    await services.catalogs.choose([langParamOfMessageFile(messageFile)]),
  );
  const messages = Object.fromEntries(Object.entries(catalog).filter(([key]) => isPageTextKey(key)));
  const answers: [PageCall, unknown][] = [
    [PAGE_CALLS.userInfo(), userInfoOf(user)],
    [PAGE_CALLS.languageList(), ok(languages)],
    [PAGE_CALLS.userLocale(user.id), ok(userFieldsOf(user, ['id', 'userLocale']))],
    [PAGE_CALLS.messages(messageFile), messages],
    [PAGE_CALLS.branding(), ok(branding)],
    [PAGE_CALLS.policy(user.id), ok(policyAnswered)],
  ];
  // The page asks for channels only then; asking otherwise would be refused and audited.
  if (policy.enableECode && sendsByChannel(policy)) {
    answers.push([
      PAGE_CALLS.availableChannels(user.id),
      ok(await availableChannels(services, user, request)),
    ]);
  }
  return Object.fromEntries(answers.map(([call, answer]) => [pageCallKey(call), answer]));
}

/**
 * What the login application's startup calls answer: the language list, branding and
 * the texts of the language it will choose with nobody signed in (no user locale) unless a choice
 * is stored in the browser, only those the login application shows (the contract's
 * `LOGIN_TEXT_KEYS`: its HTML would otherwise carry the whole catalog, about 12 KB); GET message
 * itself answers whole catalogs. None of it depends on who asks.
 */
export async function loginStartupAnswers(
  services: { catalogs: Catalogs; store: PageServices['store'] },
  acceptLanguage: string | undefined,
): Promise<PageStartupAnswers> {
  const [languages, branding] = await Promise.all([
    services.catalogs.languages(),
    currentBranding(services.store),
  ]);
  const messageFile = messageFileName(
    choosePageLanguage(
      { stored: undefined, userLocale: undefined, browserLanguage: acceptedLanguages(acceptLanguage)[0] },
      languages,
    ),
  );
  const catalog: Readonly<Record<string, string>> = await services.catalogs.dictionary(
    await services.catalogs.choose([langParamOfMessageFile(messageFile)]),
  );
  const messages = Object.fromEntries(
    LOGIN_TEXT_KEYS.filter((key) => Object.hasOwn(catalog, key)).map((key) => [key, catalog[key]]),
  );
  const answers: [PageCall, unknown][] = [
    [PAGE_CALLS.languageList(), ok(languages)],
    [PAGE_CALLS.messages(messageFile), messages],
    [PAGE_CALLS.branding(), ok(branding)],
  ];
  return Object.fromEntries(answers.map(([call, answer]) => [pageCallKey(call), answer]));
}
