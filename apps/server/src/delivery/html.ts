const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character] ?? character);
}

/** A minimal HTML e-mail body: the text, escaped, paragraphs kept. */
export function htmlDocument(language: string, bodyHtml: string): string {
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(language.replace('_', '-'))}">`,
    '<head><meta charset="utf-8"></head>',
    `<body>${bodyHtml}</body>`,
    '</html>',
  ].join('\n');
}

export function paragraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}
