import { CHANNEL_QUERY_ACTION, POLICY_CATEGORY_SELF_SERVICE, type SendType } from '@dea/contract';

/** Request bodies of /dea/api/ exactly as the page sends them (spec section 7, DESIGN section 2). */
export const API = '/dea/api';

export const bodies = {
  userinfo: () => ({}),
  userGet: (id: string, fields: ('id' | 'userLocale')[] = ['id', 'userLocale']) => ({
    match: [{ field: 'id', op: 'eq', value: id }],
    return: fields,
  }),
  getPolicy: (id: string, category: string = POLICY_CATEGORY_SELF_SERVICE) => ({
    user: { id },
    category: { name: category },
    return: ['options'],
  }),
  channels: (id: string) => ({ action: CHANNEL_QUERY_ACTION, user: { id } }),
  create: (id: string, locale = 'en') => ({
    count: 1,
    return: ['id', 'password'],
    attrs: { user: { id }, locale },
  }),
  createAndSend: (id: string, channel: SendType, recipient: string, locale = 'en') => ({
    user: { id },
    options: { channel, recipient },
    locale,
  }),
  revoke: (userId: string, emergencyCodeId: string) => ({ user: { id: userId }, emergencyCodeId }),
};

/** Every signed-in POST call with a body naming the user, for tests that go over all of them. */
export const USER_CALLS = [
  { name: 'user/get', url: `${API}/user/get`, body: (id: string) => bodies.userGet(id) },
  { name: 'user/getPolicy', url: `${API}/user/getPolicy`, body: (id: string) => bodies.getPolicy(id) },
  {
    name: 'user/queryAvailableChannels',
    url: `${API}/user/queryAvailableChannels`,
    body: (id: string) => bodies.channels(id),
  },
  { name: 'tempPass/create', url: `${API}/tempPass/create`, body: (id: string) => bodies.create(id) },
  {
    name: 'tempPass/createAndSend',
    url: `${API}/tempPass/createAndSend`,
    body: (id: string) => bodies.createAndSend(id, 'sms', 'some-reference'),
  },
  {
    name: 'tempPass/revoke',
    url: `${API}/tempPass/revoke`,
    body: (id: string) => bodies.revoke(id, 'some-code'),
  },
] as const;

/** Every call that needs a session (the user calls plus userinfo). */
export const SIGNED_IN_CALLS = [
  { name: 'userinfo', url: `${API}/userinfo`, body: (_id: string) => bodies.userinfo() },
  ...USER_CALLS,
] as const;
