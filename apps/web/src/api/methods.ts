import {
  LOGIN_API_PASSWORD_LINK_PATH,
  LOGIN_API_SESSION_PATH,
  type PasswordLinkUse,
  PAGE_CALLS,
  type BrandingEntry,
  type ChannelMap,
  type CreateAndSendRequest,
  type CreateAndSendResult,
  type RevokeCodeRequest,
  type RevokeCodeResult,
  type CreateCodeResult,
  type CreatedCode,
  type EnvelopeOf,
  type Language,
  type PageCall,
  type PolicyResult,
  type SendType,
  type SignInRequest,
  type SignInResult,
  type UserGetResult,
  type UserInfo,
} from '@dea/contract';
import { createCodeRequest, takeCodeAskedOnLoad } from '../app/code-on-load';
import type { Messages } from '../shared/i18n/translator';
import { NetworkError } from './api-error';
import { request, requestResult, type RequestOptions } from './request';

/** One function per call of spec section 7, and the login application's sign-in (DESIGN section 4). */

/** A startup call of spec section 7 as the contract describes it (PAGE_CALLS). */
function pageCall(call: PageCall, signal: AbortSignal | undefined): RequestOptions {
  return {
    method: call.method,
    ...(call.body !== undefined && { body: call.body }),
    ...(call.query !== undefined && { query: call.query }),
    ...(signal && { signal }),
  };
}

export function getUserInfo(signal?: AbortSignal): Promise<UserInfo> {
  const call = PAGE_CALLS.userInfo();
  return request<UserInfo>(call.path, pageCall(call, signal));
}

export async function getLanguageList(signal?: AbortSignal): Promise<Language[]> {
  // Spec section 7: the list is the envelope's result.
  const call = PAGE_CALLS.languageList();
  const answer = await request<EnvelopeOf<Language[]>>(call.path, pageCall(call, signal));
  const list = answer.result;
  if (!Array.isArray(list)) throw new NetworkError('the language list is not a list');
  return list;
}

export async function getUserLocale(userId: string, signal?: AbortSignal): Promise<string | undefined> {
  const call = PAGE_CALLS.userLocale(userId);
  const result = await requestResult<UserGetResult>(call.path, pageCall(call, signal));
  return result.userLocale;
}

/** GET message for a message file name ('messages', 'messages_de'); spec section 7. */
export async function getMessages(messageFile: string): Promise<Messages> {
  const call = PAGE_CALLS.messages(messageFile);
  const dictionary = await request<unknown>(call.path, pageCall(call, undefined));
  // A body that cannot be read as a dictionary is a failure like any other (spec section 8).
  if (typeof dictionary !== 'object' || dictionary === null || Array.isArray(dictionary))
    throw new NetworkError('the texts are not a dictionary');
  return dictionary;
}

export function getBranding(signal?: AbortSignal): Promise<BrandingEntry[]> {
  const call = PAGE_CALLS.branding();
  return requestResult<BrandingEntry[]>(call.path, {
    ...pageCall(call, signal),
    redirectOnSessionEnd: false,
  });
}

/**
 * The "Self Service" policy as the page is to follow it: `screenCodeTrust: 'missing'` when codes
 * would be shown on screen but this request has no reason to trust (no trusted network, no
 * remembered device): the options then send codes by channel.
 */
export async function getPolicy(userId: string, signal?: AbortSignal): Promise<PolicyResult> {
  const call = PAGE_CALLS.policy(userId);
  return requestResult<PolicyResult>(call.path, pageCall(call, signal));
}

export function queryAvailableChannels(userId: string, signal?: AbortSignal): Promise<ChannelMap> {
  const call = PAGE_CALLS.availableChannels(userId);
  return requestResult<ChannelMap>(call.path, pageCall(call, signal));
}

/**
 * A new code. `onLoad`: the code the startup asks for at once, which the page's first script may
 * already have asked for with these very details (code-on-load.ts): that call's answer is taken
 * instead of sending another.
 */
export async function createCode(userId: string, locale: string, onLoad = false): Promise<CreatedCode> {
  const body = createCodeRequest(userId, locale);
  const started = onLoad ? takeCodeAskedOnLoad(body) : undefined;
  const result = await requestResult<CreateCodeResult>('tempPass/create', {
    method: 'POST',
    body,
    ...(started !== undefined && { started }),
  });
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

/** Sets a user's password with the token of a one-time password link (the login application's form). */
export function setPasswordByLink(token: string, password: string): Promise<unknown> {
  const body: PasswordLinkUse = { token, password };
  return requestResult<unknown>(LOGIN_API_PASSWORD_LINK_PATH, {
    method: 'POST',
    body,
    redirectOnSessionEnd: false,
  });
}
