/**
 * Just enough of a MIME reader for tests to read what a real SMTP server received: unfolded
 * headers, RFC 2047 encoded words, multipart bodies, quoted-printable and base64. (The newest
 * mailparser does not install here, DESIGN section 6.)
 */
export interface ParsedMail {
  /** Header names in lower case, each with its raw (unfolded, undecoded) values. */
  headers: Map<string, string[]>;
  header(name: string): string | undefined;
  subject: string;
  text: string;
  html: string;
}

interface Part {
  headers: Map<string, string[]>;
  body: string;
}

function splitHead(raw: string): Part {
  const normalized = raw.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers = new Map<string, string[]>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { headers, body };
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const source = text.replace(/=\n/g, '');
  for (let index = 0; index < source.length; index += 1) {
    const hex = source.slice(index + 1, index + 3);
    if (source[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(source[index] ?? '', 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(
      /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g,
      (_whole, _charset: string, encoding: string, data: string) =>
        encoding.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64').toString('utf8')
          : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding')?.[0] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(part.body);
  return part.body;
}

function leaves(part: Part): Part[] {
  const type = part.headers.get('content-type')?.[0] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || boundary === undefined) return [part];
  const sections = part.body.split(`--${boundary}`).slice(1);
  return sections
    .filter((section) => !section.startsWith('--'))
    .flatMap((section) => leaves(splitHead(section.replace(/^\n/, ''))));
}

export function parseMail(raw: string): ParsedMail {
  const top = splitHead(raw);
  const parts = leaves(top);
  const ofType = (type: string): string =>
    decodeBody(
      parts.find((part) => (part.headers.get('content-type')?.[0] ?? 'text/plain').startsWith(type)) ?? {
        headers: new Map(),
        body: '',
      },
    ).replace(/\n$/, '');
  return {
    headers: top.headers,
    header: (name) => top.headers.get(name.toLowerCase())?.[0],
    subject: decodeWords(top.headers.get('subject')?.[0] ?? ''),
    text: ofType('text/plain'),
    html: ofType('text/html'),
  };
}
