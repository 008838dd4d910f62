import type { ChannelListResult, RegistrationWaysResult } from '@dea/contract';
import { requestResult } from '../api/request';

/** The channels page's calls (apps/server routes/api/channel-routes.ts), one function each. */

const post = <T>(path: string, body: unknown = {}, signal?: AbortSignal) =>
  requestResult<T>(path, { method: 'POST', body, ...(signal !== undefined && { signal }) });

export const getRegistrationWays = (signal?: AbortSignal) =>
  post<RegistrationWaysResult>('registration/ways', {}, signal);

export const sendRegistrationChallenge = (reference: string, locale: string | undefined) =>
  post<{ challengeId: string; to: string; expiresAt: string }>('registration/challenge', {
    reference,
    ...(locale !== undefined && { locale }),
  });

export const openRegistration = (body: { challengeId: string; code: string } | { link: string }) =>
  post<{ expiresAt: string }>('registration/open', body);

/** The identity provider's sign-in is a navigation, not a call: the server answers 303. */
export const OIDC_START_PATH = '/dea/api/registration/oidc/start';

export const listChannels = (signal?: AbortSignal) => post<ChannelListResult>('channels/list', {}, signal);

export const addChannel = (key: string, address: string, locale: string | undefined) =>
  post<{ proofId: string; to: string; expiresAt: string }>('channels/add', {
    key,
    address,
    ...(locale !== undefined && { locale }),
  });

export const proveChannel = (proofId: string, code: string, locale: string | undefined) =>
  post<ChannelListResult>('channels/prove', { proofId, code, ...(locale !== undefined && { locale }) });

export const removeChannel = (key: string) => post<{ done: boolean }>('channels/remove', { key });

export const testChannel = (key: string, locale: string | undefined) =>
  post<{ to: string }>('channels/test', { key, ...(locale !== undefined && { locale }) });

/** Forgets every remembered device of the person (codes on screen), this browser's cookie too. */
export const forgetDevices = () => post<{ forgotten: number }>('registration/devices/forget');

export const undoChannel = (token: string) =>
  post<{ done: boolean; passwordChange: 'help-desk' | 'organisation' }>('channels/undo', { token });
