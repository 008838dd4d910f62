import type { SendType } from '@dea/contract';
import type { Catalogs } from '../domain/catalogs.js';

export interface ComposedMessage {
  subject: string;
  text: string;
}

/** Reads a code out one character at a time: 'A, 7, K' becomes a slow, clear voice message. */
export function spellCode(code: string): string {
  return [...code].join(', ');
}

function formatExpiry(expiresAt: number, language: string): string {
  try {
    return new Intl.DateTimeFormat(language.replace('_', '-'), {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'UTC',
      timeZoneName: 'short',
    }).format(expiresAt);
  } catch {
    return new Date(expiresAt).toISOString();
  }
}

/** The localized message that carries a code. */
export async function composeCodeMessage(
  catalogs: Catalogs,
  language: string,
  type: SendType,
  code: string,
  expiresAt: number,
): Promise<ComposedMessage> {
  const subject = await catalogs.text(language, 'delivery.subject');
  const text =
    type === 'TELEPHONE'
      ? await catalogs.text(language, 'delivery.voice', { spelledCode: spellCode(code) })
      : await catalogs.text(language, 'delivery.text', { code, expires: formatExpiry(expiresAt, language) });
  return { subject, text };
}
