import { describe, expect, it } from 'vitest';
import { offsetSpans, startOfDay } from './reports.js';

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

describe("the reports' days in the viewer's time zone", () => {
  it('begin at local midnight, and a day when the clocks go back is 25 hours long', () => {
    const starts = ['2026-10-24', '2026-10-25', '2026-10-26'].map((date) =>
      startOfDay('Europe/Berlin', day(date)),
    );
    expect(starts.map((at) => new Date(at).toISOString())).toEqual([
      '2026-10-23T22:00:00.000Z',
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
    ]);
    // Summer time ends at 01:00 UTC on the 25th: from then on a time's day is counted at +1 hour.
    expect(offsetSpans('Europe/Berlin', starts)).toEqual([
      { from: Date.parse('2026-10-23T22:00:00Z'), offsetMs: 7_200_000 },
      { from: Date.parse('2026-10-25T01:00:00Z'), offsetMs: 3_600_000 },
    ]);
  });

  it('keep one offset where the zone has one, half-hour zones included', () => {
    const starts = [day('2026-11-20'), day('2026-11-21')].map((d) => startOfDay('Asia/Kolkata', d));
    expect(new Date(starts[0] ?? 0).toISOString()).toBe('2026-11-19T18:30:00.000Z');
    expect(offsetSpans('Asia/Kolkata', starts)).toEqual([{ from: starts[0], offsetMs: 19_800_000 }]);
  });
});
