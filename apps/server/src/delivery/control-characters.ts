/**
 * Control characters (CR, LF, NUL, ...) are what split a header or a request line; values that
 * end up in headers are checked or cleaned with these. Written without a regular expression of
 * control characters, which would be hard to read and review.
 */
function isControl(character: string): boolean {
  const code = character.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

export function hasControlCharacters(text: string): boolean {
  return [...text].some(isControl);
}

/** Each run of control characters becomes one space: 'a\r\nb' reads 'a b'. */
export function withoutControlCharacters(text: string): string {
  let result = '';
  let inRun = false;
  for (const character of text) {
    if (isControl(character)) {
      if (!inRun) result += ' ';
      inRun = true;
    } else {
      result += character;
      inRun = false;
    }
  }
  return result;
}
