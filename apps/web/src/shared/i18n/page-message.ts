import type { TextKey } from '@dea/contract';
import type { Translate } from './translator';

/**
 * A message for the user that is decided before the texts may be loaded (for example while the
 * language itself is still being chosen), so it is resolved to text only when shown.
 */
export type PageMessage =
  | { key: TextKey; values?: Readonly<Record<string, string | number | PageMessage>> }
  | { serverText: string };

export function resolveMessage(message: PageMessage, t: Translate): string {
  if ('serverText' in message) return message.serverText;
  if (!message.values) return t(message.key);
  const values = Object.fromEntries(
    Object.entries(message.values).map(([name, value]) => [
      name,
      typeof value === 'object' ? resolveMessage(value, t) : value,
    ]),
  );
  return t(message.key, values);
}
