import { describe, expect, it } from 'vitest';
import { safeCell } from './audit-view.js';

describe('safeCell (the audit CSV)', () => {
  it.each([
    ['=cmd|calc', 'an equals sign'],
    ['+1+1', 'a plus sign'],
    ['-1+1', 'a minus sign'],
    ['@SUM(A1)', 'an at sign'],
    ['\t=1', 'a tab'],
    ['\r=1', 'a carriage return'],
    ['\uFF1D1+1', 'a fullwidth equals sign'],
    ['\uFF0B1+1', 'a fullwidth plus sign'],
    ['\uFF0D1+1', 'a fullwidth hyphen-minus'],
    ['\uFF20SUM(A1)', 'a fullwidth at sign'],
    ['\uFE62cmd', 'a small plus sign'],
    ['\uFE63cmd', 'a small hyphen-minus'],
    ['\uFE66cmd', 'a small equals sign'],
    ['\uFE6Bcmd', 'a small at sign'],
    ['\u207A1', 'a superscript plus sign'],
    ['\u208C1', 'a subscript equals sign'],
    ['\u22121', 'a minus sign (U+2212)'],
    [' =1+1', 'a space, then an equals sign'],
    ['\u00A0\u3000\uFF1D1', 'a no-break and an ideographic space, then a fullwidth equals sign'],
    ['\u200B=1', 'a zero-width space, then an equals sign'],
    ['\u0000\u001F+1', 'control characters, then a plus sign'],
    [' \tfoo', 'a space, then a tab'],
  ])('neutralises %j (%s)', (cell) => {
    expect(safeCell(cell)).toBe(`'${cell}`);
  });

  it.each(['radius:10.0.0.5', 'alice', '2026-11-24T09:00:00.000Z', ' plain', '{"n":1}', '', 'a=b', '\uFF41'])(
    'leaves %j as it is',
    (cell) => {
      expect(safeCell(cell)).toBe(cell);
    },
  );
});
