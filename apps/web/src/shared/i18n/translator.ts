import { formatText, type TextKey } from '@dea/contract';

/** A translation dictionary as GET message answers it: text key -> text. */
export type Messages = Readonly<Partial<Record<TextKey, string>>>;

export type TextValues = Readonly<Record<string, string | number>>;

export type Translate = (key: TextKey, values?: TextValues) => string;

/**
 * Texts come only from the server catalog. A key the catalog lacks shows as the key itself, which
 * a tester notices at once, rather than as an empty space nobody does.
 */
export function createTranslator(messages: Messages): Translate {
  return (key, values) => {
    const text = messages[key] ?? key;
    return values ? formatText(text, values) : text;
  };
}
