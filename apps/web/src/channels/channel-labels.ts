import {
  CHANNEL_GROUP_OF_SEND_TYPE,
  channelKeysOfSendType,
  isChannelKey,
  isPersonalChannel,
  SEND_TYPE_OF_CHANNEL,
  SEND_TYPES,
  type ChannelKey,
  type SendType,
} from '@dea/contract';
import type { Translate } from '../shared/i18n/translator';

/** The channel keys of a send type the server names (the contract's map), none for a type it does not know. */
export function keysOfType(type: string): ChannelKey[] {
  return (SEND_TYPES as readonly string[]).includes(type) ? channelKeysOfSendType(type as SendType) : [];
}

/** "Text message (Personal)": the type of a channel key and whether it is the work or personal one. */
export function channelKeyLabel(key: string, t: Translate): string {
  const kind = isPersonalChannel(key) ? t('content.recipientPersonal') : t('content.recipientWork');
  // The type's name as the emergency page names its menus.
  const typeText = isChannelKey(key)
    ? t(`content.channel.${CHANNEL_GROUP_OF_SEND_TYPE[SEND_TYPE_OF_CHANNEL[key]]}`)
    : key;
  return `${typeText} (${kind})`;
}

/** Where a source's channel comes from (the person's source), said in the page's language. */
export function sourceText(source: string | undefined, t: Translate): string {
  switch (source) {
    case 'ldap':
      return t('channels.source.ldap');
    case 'scim':
      return t('channels.source.scim');
    case 'import':
      return t('channels.source.import');
    default:
      return t('channels.source.local');
  }
}

/** A moment in the reader's language and the browser's time zone (the person's local time). */
export function localTime(iso: string, language: string): string {
  const at = new Date(iso);
  try {
    return new Intl.DateTimeFormat(language.replace('_', '-'), {
      dateStyle: 'medium',
      timeStyle: 'short',
    }).format(at);
  } catch {
    return at.toLocaleString();
  }
}
