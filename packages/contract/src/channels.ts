/** Channel keys of a user (spec section 3) and the send types they map to (spec section 5). */
export const CHANNEL_KEYS = [
  'mobile',
  'personalMobile',
  'email',
  'personalEmail',
  'telephone',
  'personalTelephone',
  'twitter',
  'personalTwitter',
] as const;
export type ChannelKey = (typeof CHANNEL_KEYS)[number];

export const SEND_TYPES = ['sms', 'smtp', 'TELEPHONE', 'TWITTER'] as const;
export type SendType = (typeof SEND_TYPES)[number];

export const SEND_TYPE_OF_CHANNEL: Readonly<Record<ChannelKey, SendType>> = {
  mobile: 'sms',
  personalMobile: 'sms',
  email: 'smtp',
  personalEmail: 'smtp',
  telephone: 'TELEPHONE',
  personalTelephone: 'TELEPHONE',
  twitter: 'TWITTER',
  personalTwitter: 'TWITTER',
};

/** The icon dropdowns of the page, one per channel type that has channels. */
export const CHANNEL_GROUPS = ['sms', 'email', 'telephone', 'twitter'] as const;
export type ChannelGroup = (typeof CHANNEL_GROUPS)[number];

export const CHANNEL_GROUP_OF_SEND_TYPE: Readonly<Record<SendType, ChannelGroup>> = {
  sms: 'sms',
  smtp: 'email',
  TELEPHONE: 'telephone',
  TWITTER: 'twitter',
};

export function isChannelKey(value: string): value is ChannelKey {
  return (CHANNEL_KEYS as readonly string[]).includes(value);
}

/** The personal channels (personalMobile, personalEmail, ...); the others are the work ones. */
export function isPersonalChannel(key: string): boolean {
  return key.startsWith('personal');
}

export function channelKeysOfSendType(type: SendType): ChannelKey[] {
  return CHANNEL_KEYS.filter((key) => SEND_TYPE_OF_CHANNEL[key] === type);
}

/** A channel map value is 'masked display value,recipient reference'. */
export function joinChannelValue(masked: string, reference: string): string {
  return `${masked},${reference}`;
}

/** Splits at the last comma: the reference never holds one, a masked value might. */
export function splitChannelValue(value: string): { masked: string; reference: string } {
  const comma = value.lastIndexOf(',');
  if (comma < 0) return { masked: value, reference: '' };
  return { masked: value.slice(0, comma), reference: value.slice(comma + 1) };
}
