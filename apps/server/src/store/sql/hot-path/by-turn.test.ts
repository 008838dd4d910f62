import { describe, expect, it } from 'vitest';
import { gatheredByTurn, MAX_GATHERED, readsGatheredByTurn } from './by-turn.js';

describe('calls gathered by turn of the event loop', () => {
  it('gives the calls of one turn to one run, and answers each its own result', async () => {
    const runs: number[][] = [];
    const double = gatheredByTurn(
      async (items: number[]) => {
        runs.push(items);
        return items.map((item) => item * 2);
      },
      async (item) => {
        runs.push([item]);
        return item * 2;
      },
    );
    expect(await Promise.all([1, 2, 3].map((item) => double(item)))).toEqual([2, 4, 6]);
    expect(await double(4)).toBe(8);
    expect(runs).toEqual([[1, 2, 3], [4]]);
  });

  it(`gathers at most ${MAX_GATHERED} calls into one run`, async () => {
    const sizes: number[] = [];
    const echo = gatheredByTurn(
      async (items: number[]) => {
        sizes.push(items.length);
        return items;
      },
      async (item) => {
        sizes.push(1);
        return item;
      },
    );
    const items = Array.from({ length: MAX_GATHERED + 5 }, (_, index) => index);
    expect(await Promise.all(items.map((item) => echo(item)))).toEqual(items);
    expect(sizes).toEqual([MAX_GATHERED, 5]);
  });

  it('runs each call alone when the gathered run fails, so that a failure stays its own', async () => {
    const check = gatheredByTurn(
      async (items: number[]) => {
        if (items.includes(13)) throw new Error('one of them is bad');
        return items;
      },
      async (item) => {
        if (item === 13) throw new Error(`${item} is bad`);
        return item;
      },
    );
    const outcomes = await Promise.allSettled([1, 13, 2].map((item) => check(item)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('13 is bad') },
      { status: 'fulfilled', value: 2 },
    ]);
  });
});

describe('reads gathered by turn of the event loop', () => {
  it('reads the keys of one turn at once, each key once, and answers undefined for one not found', async () => {
    const reads: string[][] = [];
    const read = readsGatheredByTurn(async (keys: string[]) => {
      reads.push(keys);
      return new Map(keys.filter((key) => key !== 'gone').map((key) => [key, key.toUpperCase()]));
    });
    expect(await Promise.all(['a', 'b', 'a', 'gone'].map((key) => read(key)))).toEqual([
      'A',
      'B',
      'A',
      undefined,
    ]);
    expect(await read('c')).toBe('C');
    expect(reads).toEqual([['a', 'b', 'gone'], ['c']]);
  });
});
