import { TEXT_KEYS, type TextKey } from '@dea/contract';
import type { Messages } from '../shared/i18n/translator';

/** Placeholders of the catalog texts the page fills in. */
const PLACEHOLDERS: Partial<Record<TextKey, string[]>> = {
  successMessage: ['recipient'],
  'app.copyright': ['year'],
  'app.version': ['version'],
  'error.userLocale': ['message'],
  'login.locked': ['duration'],
  'content.validUntil': ['time', 'remaining'],
  'content.nextCodeAt': ['time'],
  'content.sentUntil': ['recipient', 'time'],
  'content.yourCodeUses': ['count'],
  'channels.signIn.codeSent': ['recipient', 'time'],
  'channels.sessionUntil': ['time'],
  'channels.state.cooling': ['time'],
  'channels.state.pending': ['time'],
  'channels.testSent': ['recipient'],
  'channels.removed': ['recipient'],
  'channels.add.limit': ['max', 'count'],
  'channels.prove.heading': ['recipient'],
  'channels.prove.sent': ['recipient', 'time'],
  'channels.prove.tries': ['count'],
  'channels.proven': ['recipient'],
  'channels.passkeys.addedOn': ['date'],
  'channels.passkeys.lastUsed': ['date'],
  'channels.passkeys.renameLabel': ['name'],
  'channels.passkeys.removeLabel': ['name'],
};

/**
 * A catalog whose texts say which language and key they are ('de:content.copyCode'), so a test
 * can see both that a text comes from the catalog and from which language's catalog.
 */
export function testMessages(language: string): Messages {
  return Object.fromEntries(
    TEXT_KEYS.map((key) => {
      const placeholders = (PLACEHOLDERS[key] ?? []).map((name) => ` {${name}}`).join('');
      return [key, `${language}:${key}${placeholders}`];
    }),
  );
}

/** The text the page shows for a key in a language, placeholders filled in. */
export function text(language: string, key: TextKey, values: Record<string, string | number> = {}): string {
  const placeholders = (PLACEHOLDERS[key] ?? []).map((name) => ` ${values[name] ?? `{${name}}`}`).join('');
  return `${language}:${key}${placeholders}`;
}
