// Made once per language and unit: a new Intl.NumberFormat costs about a quarter of a millisecond,
// paid by every refusal that says how long to wait (a flood of sign-ins answered error 140).
const unitFormats = new Map<string, Intl.NumberFormat>();

function unitFormat(locale: string, unit: string): Intl.NumberFormat {
  const key = `${locale} ${unit}`;
  let format = unitFormats.get(key);
  if (format === undefined) {
    // Throws for a locale Intl cannot read: nothing is kept for it.
    format = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' });
    if (unitFormats.size < 256) unitFormats.set(key, format);
  }
  return format;
}

/**
 * A span of time as a person says it (the server's messages and the page share it), in their language and with its plural rules (ICU's, through
 * Intl): 580 seconds is "10 minutes", "10 Minuten", "10 دقائق"; under a minute and a half it stays
 * in seconds, under an hour and a half in minutes, beyond that in hours. Always rounded up, so a
 * user who waits as long as told is never early.
 */
export function humanDuration(language: string, seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  const [value, unit] =
    whole < 90
      ? [whole, 'second']
      : whole < 90 * 60
        ? [Math.ceil(whole / 60), 'minute']
        : [Math.ceil(whole / 3600), 'hour'];
  const format = (locale: string) => unitFormat(locale, unit).format(value);
  try {
    return format(language.replace('_', '-'));
  } catch {
    return format('en');
  }
}
