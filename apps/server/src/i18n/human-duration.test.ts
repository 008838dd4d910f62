import { describe, expect, it } from 'vitest';
import { humanDuration } from '@dea/contract';

describe('a span of time as a person says it', () => {
  it('rounds up to seconds, minutes or hours', () => {
    expect(humanDuration('en', 0.2)).toBe('1 second');
    expect(humanDuration('en', 45)).toBe('45 seconds');
    expect(humanDuration('en', 580)).toBe('10 minutes');
    expect(humanDuration('en', 61 * 60)).toBe('61 minutes');
    expect(humanDuration('en', 61 * 60 + 1)).toBe('62 minutes');
    expect(humanDuration('en', 3 * 3600)).toBe('3 hours');
  });

  it('follows the plural rules of each language', () => {
    expect(humanDuration('de', 580)).toBe('10 Minuten');
    expect(humanDuration('de', 60 * 60 + 1)).toBe('61 Minuten');
    expect(humanDuration('pl', 120)).toBe('2 minuty');
    expect(humanDuration('pl', 300)).toBe('5 minut');
    // Arabic: 3 to 10 take the plural form, 11 and more the singular one.
    expect(humanDuration('ar', 180)).toContain('دقائق');
    expect(humanDuration('ar', 600)).toContain('دقائق');
    expect(humanDuration('ar', 660)).toContain('دقيقة');
    expect(humanDuration('ja', 600)).toBe('10 分');
    expect(humanDuration('pt_BR', 120)).toBe('2 minutos');
    expect(humanDuration('not a language', 120)).toBe('2 minutes');
  });
});
