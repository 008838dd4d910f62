import {
  CHANNEL_QUERY_ACTION,
  CODE_COUNT_PER_REQUEST,
  LOGIN_API_SESSION_PATH,
  POLICY_CATEGORY_SELF_SERVICE,
  langParamOfMessageFile,
  type BrandingEntry,
  type ChannelMap,
  type ChannelsRequest,
  type CreateAndSendRequest,
  type CreateAndSendResult,
  type CreateCodeRequest,
  type RevokeCodeRequest,
  type RevokeCodeResult,
  type CreateCodeResult,
  type CreatedCode,
  type EnvelopeOf,
  type Language,
  type PolicyOptions,
  type PolicyRequest,
  type PolicyResult,
  type SendType,
  type SignInRequest,
  type SignInResult,
  type UserGetRequest,
  type UserGetResult,
  type UserInfo,
} from '@dea/contract';
import type { Messages } from '../shared/i18n/translator';
import { NetworkError } from './api-error';
import { request, requestResult } from './request';

/** One function per call of spec section 7, and the login application's sign-in (DESIGN section 4). */

export function getUserInfo(signal?: AbortSignal): Promise<UserInfo> {
  return request<UserInfo>('userinfo', { method: 'POST', body: {}, ...(signal && { signal }) });
}

export async function getLanguageList(signal?: AbortSignal): Promise<Language[]> {
  // Spec section 7: the list is the envelope's result.
  const answer = await request<EnvelopeOf<Language[]>>('resourceFile/getLanguageList', {
    ...(signal && { signal }),
  });
  const list = answer.result;
  if (!Array.isArray(list)) throw new NetworkError('the language list is not a list');
  return list;
}

export async function getUserLocale(userId: string, signal?: AbortSignal): Promise<string | undefined> {
  const body: UserGetRequest = {
    match: [{ field: 'id', op: 'eq', value: userId }],
    return: ['id', 'userLocale'],
  };
  const result = await requestResult<UserGetResult>('user/get', {
    method: 'POST',
    body,
    ...(signal && { signal }),
  });
  return result.userLocale;
}

/** GET message for a message file name ('messages', 'messages_de'); spec section 7. */
export function getMessages(messageFile: string): Promise<Messages> {
  return request<Messages>('message', { query: { lang: langParamOfMessageFile(messageFile) } });
}

export function getBranding(signal?: AbortSignal): Promise<BrandingEntry[]> {
  return requestResult<BrandingEntry[]>('customizationConfig/getCurrentConfig', {
    method: 'POST',
    body: {},
    redirectOnSessionEnd: false,
    ...(signal && { signal }),
  });
}

export async function getPolicy(userId: string, signal?: AbortSignal): Promise<PolicyOptions> {
  const body: PolicyRequest = {
    user: { id: userId },
    category: { name: POLICY_CATEGORY_SELF_SERVICE },
    return: ['options'],
  };
  const result = await requestResult<PolicyResult>('user/getPolicy', {
    method: 'POST',
    body,
    ...(signal && { signal }),
  });
  return result.options;
}

export function queryAvailableChannels(userId: string, signal?: AbortSignal): Promise<ChannelMap> {
  const body: ChannelsRequest = { action: CHANNEL_QUERY_ACTION, user: { id: userId } };
  return requestResult<ChannelMap>('user/queryAvailableChannels', {
    method: 'POST',
    body,
    ...(signal && { signal }),
  });
}

export async function createCode(userId: string, locale: string): Promise<CreatedCode> {
  const body: CreateCodeRequest = {
    count: CODE_COUNT_PER_REQUEST,
    return: ['id', 'password'],
    attrs: { user: { id: userId }, locale },
  };
  const result = await requestResult<CreateCodeResult>('tempPass/create', { method: 'POST', body });
  const row = result.rows[0];
  if (row?.id === undefined || row.password === undefined)
    throw new NetworkError('tempPass/create answered no code');
  return { id: row.id, password: row.password };
}

/**
 * Takes back the code on screen before its replacement is asked for, so the old one cannot be used
 * any more and never fills the user's code limit. Answers whether it was still unused.
 */
export async function revokeCode(userId: string, emergencyCodeId: string): Promise<boolean> {
  const body: RevokeCodeRequest = { user: { id: userId }, emergencyCodeId };
  const result = await requestResult<RevokeCodeResult>('tempPass/revoke', { method: 'POST', body });
  return result.revoked;
}

/** Sends a new code to a recipient reference; answers the masked recipient. */
export async function createAndSendCode(
  userId: string,
  channel: SendType,
  recipient: string,
  locale: string,
): Promise<string> {
  const body: CreateAndSendRequest = { user: { id: userId }, options: { channel, recipient }, locale };
  const result = await requestResult<CreateAndSendResult>('tempPass/createAndSend', { method: 'POST', body });
  return result.to;
}

/**
 * Signs in (the login application). A wrong password and an unknown user answer the same
 * envelope error; a locked user name or address answers error 140. Never a session redirect:
 * there is no session to lose yet.
 */
export function signIn(username: string, password: string): Promise<SignInResult> {
  const body: SignInRequest = { username, password };
  return requestResult<SignInResult>(LOGIN_API_SESSION_PATH, {
    method: 'POST',
    body,
    redirectOnSessionEnd: false,
  });
}
