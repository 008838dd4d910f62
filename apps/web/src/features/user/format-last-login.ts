/**
 * The last login as 'dd. MMM. yyyy HH:mm' (spec section 9): month name in the page's language,
 * time in the user's own time zone, digits always Western so the pattern reads the same in
 * every language.
 */
export function formatLastLogin(iso: string, languageCode: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const locale = languageCode.replace('_', '-');
  const options: Intl.DateTimeFormatOptions = {
    day: '2-digit',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    numberingSystem: 'latn',
    ...(timeZone ? { timeZone } : {}),
  };
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat(locale, options).formatToParts(date);
  } catch {
    parts = new Intl.DateTimeFormat('en', options).formatToParts(date);
  }
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  // Some languages abbreviate with a dot of their own ('Nov.'); the pattern adds one already.
  const month = part('month').replace(/\.$/, '');
  return `${part('day')}. ${month}. ${part('year')} ${part('hour')}:${part('minute')}`;
}
