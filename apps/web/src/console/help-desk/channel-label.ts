import { isChannelKey } from '@dea/contract';
import type { ConsoleTranslate } from '../i18n/console-texts';

const LABEL = {
  mobile: 'channel.mobile',
  personalMobile: 'channel.personalMobile',
  email: 'channel.email',
  personalEmail: 'channel.personalEmail',
  telephone: 'channel.telephone',
  personalTelephone: 'channel.personalTelephone',
  twitter: 'channel.twitter',
  personalTwitter: 'channel.personalTwitter',
} as const;

/** "Work mobile", "Personal e-mail": what a channel is, in the console's language. */
export const channelLabel = (t: ConsoleTranslate, key: string): string =>
  isChannelKey(key) ? t(LABEL[key]) : key;
