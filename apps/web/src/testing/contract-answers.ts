import {
  AdminBranding,
  AdminConsoleAccounts,
  AdminEnrolmentLink,
  AdminGroupOwner,
  AdminGroups,
  AdminLanguageAdded,
  AdminLanguages,
  AdminPasswordLink,
  AdminPeople,
  AdminPerson,
  AdminPersonChanged,
  AdminPolicyResult,
  AdminServiceKey,
  AdminServiceKeyCreated,
  AdminServiceKeys,
  AdminSessionsEnded,
  AdminSettings,
  AdminTexts,
  AdminTextsSetResult,
  BrandingEntry,
  BrandingList,
  ChannelAddResult,
  ChannelChangeResult,
  ChannelListResult,
  ChannelMap,
  ChannelTestResult,
  ChannelUndoResult,
  ConsoleAuditEvents,
  ConsoleAuditPage,
  ConsoleMe,
  ConsoleReports,
  ConsoleSignInOptions,
  ConsoleSignInResult,
  CreateAndSendResult,
  CreateCodeResult,
  CreatedId,
  DevicesForgetResult,
  ErrorEnvelope,
  HelpDeskCountResult,
  HelpDeskIssueResult,
  HelpDeskRegistrationLinkResult,
  HelpDeskSearchResult,
  HelpDeskSendResult,
  HelpDeskUser,
  LanguageList,
  LOGIN_API_PASSWORD_LINK_PATH,
  LOGIN_API_SESSION_PATH,
  MessageDictionary,
  NoResult,
  PasskeyOptions,
  PolicyResult,
  RegistrationChallengeResult,
  RegistrationOpenResult,
  RegistrationWaysResult,
  RevokeCodeResult,
  SignInResult,
  SuccessEnvelope,
  UserGetResult,
  UserInfo,
  UserPasskeyAddResult,
  UserPasskeyListResult,
  VerifyResult,
} from '@dea/contract';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * What a route answers with HTTP 200, by the contract's schema its route on the server declares:
 * the envelope's result, or a body of its own (`bare`: userinfo, message).
 */
type RouteAnswer = { result: TSchema } | { bare: TSchema };

/**
 * The page's and the login application's routes, "METHOD path", the path under /dea/api/ (the
 * login application's absolute). A fake that answers a route not here answers what no server does.
 */
export const PAGE_ANSWERS: Readonly<Record<string, RouteAnswer>> = {
  'POST userinfo': { bare: UserInfo },
  'GET message': { bare: MessageDictionary },
  'GET resourceFile/getLanguageList': { result: LanguageList },
  'POST customizationConfig/getCurrentConfig': { result: BrandingList },
  'POST user/get': { result: UserGetResult },
  'POST user/getPolicy': { result: PolicyResult },
  'POST user/queryAvailableChannels': { result: ChannelMap },
  'POST tempPass/create': { result: CreateCodeResult },
  'POST tempPass/revoke': { result: RevokeCodeResult },
  'POST tempPass/createAndSend': { result: CreateAndSendResult },
  'POST tempPass/verify': { result: VerifyResult },
  'POST registration/ways': { result: RegistrationWaysResult },
  'POST registration/challenge': { result: RegistrationChallengeResult },
  'POST registration/open': { result: RegistrationOpenResult },
  'POST registration/devices/forget': { result: DevicesForgetResult },
  'POST registration/passkey/options': { result: PasskeyOptions },
  'POST registration/passkey/open': { result: RegistrationOpenResult },
  'POST channels/list': { result: ChannelListResult },
  'POST channels/add': { result: ChannelAddResult },
  'POST channels/prove': { result: ChannelListResult },
  'POST channels/test': { result: ChannelTestResult },
  'POST channels/remove': { result: ChannelChangeResult },
  'POST channels/undo': { result: ChannelUndoResult },
  'POST passkeys/list': { result: UserPasskeyListResult },
  'POST passkeys/options': { result: PasskeyOptions },
  'POST passkeys/add': { result: UserPasskeyAddResult },
  'POST passkeys/rename': { result: ChannelChangeResult },
  'POST passkeys/remove': { result: ChannelChangeResult },
  [`POST ${LOGIN_API_SESSION_PATH}`]: { result: SignInResult },
  [`POST ${LOGIN_API_PASSWORD_LINK_PATH}`]: { result: NoResult },
};

/** The console's routes, "METHOD path", the path under /dea/admin-api/ (`:name`: one segment). */
export const CONSOLE_ANSWERS: Readonly<Record<string, RouteAnswer>> = {
  'GET oidc': { result: ConsoleSignInOptions },
  'POST session': { result: ConsoleSignInResult },
  'GET me': { result: ConsoleMe },
  'POST passkey/registration/options': { result: PasskeyOptions },
  'POST passkey/registration': { result: NoResult },
  'POST passkey/authentication/options': { result: PasskeyOptions },
  'POST passkey/authentication': { result: NoResult },
  'POST session/end': { result: NoResult },
  'GET helpdesk/users': { result: HelpDeskSearchResult },
  'GET helpdesk/users/:userId': { result: HelpDeskUser },
  'POST helpdesk/users/:userId/codes': { result: HelpDeskIssueResult },
  'POST helpdesk/users/:userId/codes/send': { result: HelpDeskSendResult },
  'POST helpdesk/users/:userId/codes/revoke': { result: HelpDeskCountResult },
  'POST helpdesk/users/:userId/registration-link': { result: HelpDeskRegistrationLinkResult },
  'POST helpdesk/users/:userId/devices/forget': { result: HelpDeskCountResult },
  'POST helpdesk/users/:userId/passkeys/forget': { result: HelpDeskCountResult },
  'POST helpdesk/users/:userId/addresses/allow': { result: HelpDeskCountResult },
  'POST helpdesk/users/:userId/unlock': { result: HelpDeskCountResult },
  'POST helpdesk/users/:userId/sessions/end': { result: HelpDeskCountResult },
  'GET audit': { result: ConsoleAuditPage },
  'GET audit/events': { result: ConsoleAuditEvents },
  'GET reports': { result: ConsoleReports },
  'GET admin/groups': { result: AdminGroups },
  'POST admin/groups': { result: CreatedId },
  'POST admin/groups/:groupId/policy': { result: AdminPolicyResult },
  'POST admin/groups/:groupId/owner': { result: AdminGroupOwner },
  'GET admin/branding': { result: AdminBranding },
  'POST admin/branding': { result: BrandingEntry },
  'POST admin/branding/reset': { result: BrandingEntry },
  'GET admin/languages': { result: AdminLanguages },
  'POST admin/languages': { result: AdminLanguageAdded },
  'GET admin/texts/:language': { result: AdminTexts },
  'POST admin/texts/:language': { result: AdminTextsSetResult },
  'GET admin/service-keys': { result: AdminServiceKeys },
  'POST admin/service-keys': { result: AdminServiceKeyCreated },
  'POST admin/service-keys/:keyId/revoke': { result: AdminServiceKey },
  'GET admin/settings': { result: AdminSettings },
  'GET admin/people': { result: AdminPeople },
  'POST admin/people': { result: CreatedId },
  'GET admin/people/:userId': { result: AdminPerson },
  'POST admin/people/:userId': { result: AdminPersonChanged },
  'POST admin/people/:userId/disable': { result: AdminPersonChanged },
  'POST admin/people/:userId/enable': { result: AdminPersonChanged },
  'POST admin/people/:userId/remove': { result: AdminPersonChanged },
  'POST admin/people/:userId/sessions/end': { result: AdminPersonChanged },
  'POST admin/people/:userId/groups': { result: AdminPersonChanged },
  'POST admin/people/:userId/channels/proofs': { result: ChannelAddResult },
  'POST admin/people/:userId/channels/prove': { result: AdminPersonChanged },
  'POST admin/people/:userId/channels/remove': { result: AdminPersonChanged },
  'POST admin/people/:userId/password-link': { result: AdminPasswordLink },
  'GET admin/console-accounts': { result: AdminConsoleAccounts },
  'POST admin/console-accounts': { result: AdminEnrolmentLink },
  'POST admin/console-accounts/:accountId/role': { result: NoResult },
  'POST admin/console-accounts/:accountId/disable': { result: AdminSessionsEnded },
  'POST admin/console-accounts/:accountId/enable': { result: AdminSessionsEnded },
  'POST admin/console-accounts/:accountId/passkeys/name': { result: NoResult },
  'POST admin/console-accounts/:accountId/passkeys/remove': { result: NoResult },
  'POST admin/console-accounts/:accountId/passkeys/reset': { result: AdminEnrolmentLink },
};

function routeAnswerOf(
  answers: Readonly<Record<string, RouteAnswer>>,
  method: string,
  path: string,
): RouteAnswer | undefined {
  const exact = answers[`${method} ${path}`];
  if (exact !== undefined) return exact;
  const segments = path.split('/');
  for (const [route, answer] of Object.entries(answers)) {
    const [routeMethod, routePath = ''] = route.split(' ');
    const routeSegments = routePath.split('/');
    if (
      routeMethod === method &&
      routeSegments.length === segments.length &&
      routeSegments.every((segment, index) => segment.startsWith(':') || segment === segments[index])
    )
      return answer;
  }
  return undefined;
}

/**
 * Where a fake's answer to "METHOD path" departs from the contract: a route no server has, or a
 * body its route's schema refuses (a business error: ErrorEnvelope). None for a body that is fine.
 */
export function contractProblems(
  answers: Readonly<Record<string, RouteAnswer>>,
  method: string,
  path: string,
  status: number,
  body: unknown,
): string[] {
  const route = `${method} ${path}`;
  const answer = routeAnswerOf(answers, method, path);
  if (answer === undefined) return [`${route}: no route of the contract answers this call`];
  const failed = typeof body === 'object' && body !== null && 'error' in body && body.error !== 0;
  const schema =
    status !== 200 || failed
      ? ErrorEnvelope
      : 'bare' in answer
        ? answer.bare
        : SuccessEnvelope(answer.result);
  return Value.Errors(schema, body)
    .slice(0, 5)
    .map((error) => `${route} (HTTP ${status}): ${error.instancePath || '/'} ${error.message}`);
}

/**
 * What fakes answered against the contract in the current test; testing/setup.ts fails the test
 * when there is any. An answer that is off the contract on purpose (what the page does with a body
 * no server sends) says so with `offContract`.
 */
export const contractDrift: string[] = [];
