import { isChannelKey } from '@dea/contract';
import type { ConsoleTranslate } from '../i18n/console-texts';

/** "Work mobile", "Personal e-mail": what a channel is, in the console's language. */
export const channelLabel = (t: ConsoleTranslate, key: string): string =>
  isChannelKey(key) ? t(`channel.${key}`) : key;
