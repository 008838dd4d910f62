import type { SendType } from '@dea/contract';
import type { Catalogs } from '../domain/texts/catalogs.js';
import { escapeHtml, htmlDocument, paragraphs } from './html.js';

export interface ComposedMessage {
  subject: string;
  text: string;
  /** The e-mail body: the same text, escaped, with the code set apart. */
  html: string;
}

/** Reads a code out one character at a time: 'A, 7, K' becomes a slow, clear voice message. */
export function spellCode(code: string): string {
  return [...code].join(', ');
}

/**
 * A time in the reader's language and time zone, with the zone's name as the language writes it
 * ("MEZ", "GMT+9"). Intl refuses timeZoneName together with dateStyle, so the zone is written out
 * after the time.
 */
export function formatTime(at: number, language: string, timeZone: string): string {
  const locale = language.replace('_', '-');
  try {
    const local = new Intl.DateTimeFormat(locale, {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone,
    }).format(at);
    const zone = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
    return zone === undefined ? local : `${local} ${zone}`;
  } catch {
    return new Date(at).toISOString();
  }
}

/** Stands in for the code while the text is escaped, so the code can then be wrapped in markup. */
const CODE_MARK = '\u0000code\u0000';

const MESSAGE_KEYS = {
  emergency: { subject: 'delivery.subject', voice: 'delivery.voice', text: 'delivery.text' },
  proof: { subject: 'delivery.proof.subject', voice: 'delivery.proof.voice', text: 'delivery.proof.text' },
  registration: {
    subject: 'delivery.registration.subject',
    voice: 'delivery.registration.voice',
    text: 'delivery.registration.text',
  },
  test: { subject: 'delivery.test.subject', voice: 'delivery.test.voice', text: 'delivery.test.text' },
} as const;

/** The localized message that carries a code. */
export async function composeCodeMessage(
  catalogs: Catalogs,
  language: string,
  type: SendType,
  code: string,
  expiresAt: number,
  timeZone: string,
  /**
   * An emergency code, the code that proves a new address, the one that opens registration or a
   * channel's test message, which carries no code (their own texts).
   */
  purpose: 'emergency' | 'proof' | 'registration' | 'test' = 'emergency',
): Promise<ComposedMessage> {
  const keys = MESSAGE_KEYS[purpose];
  const subject = await catalogs.text(language, keys.subject);
  const expires = formatTime(expiresAt, language, timeZone);
  if (type === 'TELEPHONE') {
    const text = await catalogs.text(language, keys.voice, { spelledCode: spellCode(code) });
    return { subject, text, html: htmlDocument(language, paragraphs(text)) };
  }
  const text = await catalogs.text(language, keys.text, { code, expires });
  const marked = await catalogs.text(language, keys.text, { code: CODE_MARK, expires });
  const body = paragraphs(marked)
    .split(CODE_MARK)
    .join(`<strong><code>${escapeHtml(code)}</code></strong>`);
  return { subject, text, html: htmlDocument(language, body) };
}

/**
 * The notice to the user's other channels: when and where a code went, never the code. A code
 * shown on screen has no recipient, so its notice says so instead.
 */
export async function composeNotice(
  catalogs: Catalogs,
  language: string,
  at: number,
  maskedRecipient: string | null,
  timeZone: string,
): Promise<ComposedMessage> {
  const subject = await catalogs.text(language, 'delivery.notice.subject');
  const time = formatTime(at, language, timeZone);
  const text =
    maskedRecipient === null
      ? await catalogs.text(language, 'delivery.notice.screenText', { time })
      : await catalogs.text(language, 'delivery.notice.text', { recipient: maskedRecipient, time });
  return { subject, text, html: htmlDocument(language, paragraphs(text)) };
}

/**
 * The notice to a person's other channels that a channel was registered: which address, when,
 * and the link that undoes it and alerts the help desk. Never the code that proved it.
 */
export async function composeChannelNotice(
  catalogs: Catalogs,
  language: string,
  at: number,
  maskedRecipient: string,
  undoUrl: string,
  timeZone: string,
): Promise<ComposedMessage> {
  const subject = await catalogs.text(language, 'delivery.channelNotice.subject');
  const time = formatTime(at, language, timeZone);
  const text = await catalogs.text(language, 'delivery.channelNotice.text', {
    recipient: maskedRecipient,
    time,
    undoUrl,
  });
  return { subject, text, html: htmlDocument(language, paragraphs(text)) };
}
