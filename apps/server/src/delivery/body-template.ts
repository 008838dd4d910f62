/**
 * Filling an operator's request template with message values. Every value is escaped for the
 * place it lands in, so no recipient or message text can change the shape of the request (a
 * quote ending a JSON string, an '&' adding a form field, a '<' opening an XML element).
 */
export type BodyEncoding = 'json' | 'form' | 'xml' | 'text';

export type TemplateValues = Readonly<Record<'recipient' | 'message' | 'subject', string>>;

/** The placeholders: {recipientDigits} is the recipient without '+' (for APIs that want bare digits). */
const PLACEHOLDER = /\{(recipient|recipientDigits|message|subject)\}/g;

export function bodyEncodingOf(contentType: string): BodyEncoding {
  const type = contentType.toLowerCase();
  if (type.includes('json')) return 'json';
  if (type.includes('x-www-form-urlencoded')) return 'form';
  if (type.includes('xml')) return 'xml';
  return 'text';
}

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function escapeFor(encoding: BodyEncoding | 'url', value: string): string {
  switch (encoding) {
    case 'json':
      // The inside of a JSON string: the template supplies the quotes.
      return JSON.stringify(value).slice(1, -1);
    case 'form':
    case 'url':
      return encodeURIComponent(value);
    case 'xml':
      return value.replace(/[&<>"']/g, (character) => XML_ENTITIES[character] ?? character);
    case 'text':
      return value;
  }
}

/** Replaces the placeholders; other braces (JSON's own) stay as they are. */
export function fillTemplate(
  template: string,
  values: TemplateValues,
  encoding: BodyEncoding | 'url',
): string {
  return template.replace(PLACEHOLDER, (_whole, name: keyof TemplateValues | 'recipientDigits') =>
    escapeFor(encoding, name === 'recipientDigits' ? values.recipient.replace(/^\+/, '') : values[name]),
  );
}
