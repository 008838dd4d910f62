/**
 * JSON that can stand inside an HTML `<script>` data block: no `<` (so no `</script>` or `<!--`),
 * `>` and `&`, and no line separators, whatever the strings hold (branding HTML and CSS among them).
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
