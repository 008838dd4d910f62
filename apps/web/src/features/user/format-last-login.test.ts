import { describe, expect, it } from 'vitest';
import { formatLastLogin } from './format-last-login';

describe("formatLastLogin ('dd. MMM. yyyy HH:mm')", () => {
  it('formats in the given time zone with a 24-hour clock', () => {
    expect(formatLastLogin('2026-03-05T21:07:00Z', 'en', 'UTC')).toBe('05. Mar. 2026 21:07');
    expect(formatLastLogin('2026-03-05T21:07:00Z', 'en', 'Asia/Tokyo')).toBe('06. Mar. 2026 06:07');
  });

  it("names the month in the page's language without a doubled dot", () => {
    expect(formatLastLogin('2026-11-21T08:30:00Z', 'de', 'Europe/Berlin')).toBe('21. Nov. 2026 09:30');
    expect(formatLastLogin('2026-02-01T00:00:00Z', 'fr', 'UTC')).toBe('01. févr. 2026 00:00');
  });

  it.each([
    ['ja', '23. 11月. 2026 09:30'],
    ['zh', '23. 11月. 2026 09:30'],
  ])('writes MMM as the short month name in %s, never a bare number', (language, expected) => {
    expect(formatLastLogin('2026-11-23T09:30:00Z', language, 'UTC')).toBe(expected);
  });

  it.each(['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'ar', 'ja', 'zh'])(
    'never writes the month of %s as a bare number',
    (language) => {
      const month = formatLastLogin('2026-11-23T09:30:00Z', language, 'UTC').split('. ')[1] ?? '';
      expect(month).not.toMatch(/^\d+$/);
      expect(month).not.toBe('');
    },
  );

  it('keeps Western digits in every language', () => {
    expect(formatLastLogin('2026-11-21T08:30:00Z', 'ar', 'UTC')).toMatch(/^21\. \S+\. 2026 08:30$/);
  });

  it('shows nothing for a value that is not a date', () => {
    expect(formatLastLogin('yesterday', 'en', 'UTC')).toBe('');
  });
});
