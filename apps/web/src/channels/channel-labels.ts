import type { TextKey } from '@dea/contract';
import type { Translate } from '../shared/i18n/translator';

/** The channel types' names, as the emergency page names them. */
const TYPE_TEXT: Readonly<Record<string, TextKey>> = {
  sms: 'content.channel.sms',
  smtp: 'content.channel.email',
  TELEPHONE: 'content.channel.telephone',
  TWITTER: 'content.channel.twitter',
};

/** The channel keys of each send type: the work one, then the personal one (spec section 3). */
export const KEYS_OF_TYPE: Readonly<Record<string, readonly [string, string]>> = {
  sms: ['mobile', 'personalMobile'],
  smtp: ['email', 'personalEmail'],
  TELEPHONE: ['telephone', 'personalTelephone'],
  TWITTER: ['twitter', 'personalTwitter'],
};

/** "Text message (Personal)": the type of a channel key and whether it is the work or personal one. */
export function channelKeyLabel(key: string, t: Translate): string {
  const type = Object.keys(KEYS_OF_TYPE).find((each) => KEYS_OF_TYPE[each]?.includes(key));
  const kind = key.startsWith('personal') ? t('content.recipientPersonal') : t('content.recipientWork');
  const typeText = type === undefined ? key : t(TYPE_TEXT[type] ?? 'content.channel.sms');
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
