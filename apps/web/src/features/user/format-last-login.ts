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
  const formatter = (monthOnly: boolean): Intl.DateTimeFormat => {
    const chosen = monthOnly
      ? { month: 'short' as const, numberingSystem: 'latn', ...(timeZone ? { timeZone } : {}) }
      : options;
    try {
      return new Intl.DateTimeFormat(locale, chosen);
    } catch {
      return new Intl.DateTimeFormat('en', chosen);
    }
  };
  const parts = formatter(false).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  // MMM is the month's short name in every language. Inside a whole date some languages write
  // the month as a bare number ('11' in Japanese, whose 月 is a separate literal); on its own
  // the short month is a name everywhere ('11月', 'Nov.'). Some abbreviate with a dot of their
  // own; the pattern adds one already.
  const month = formatter(true).format(date).replace(/\.$/, '');
  return `${part('day')}. ${month}. ${part('year')} ${part('hour')}:${part('minute')}`;
}
