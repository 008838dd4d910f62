import { describe, expect, it, vi } from 'vitest';
import { readingAhead } from './reading-ahead.js';

/** Pages whose reads are recorded, each answered only when the test lets it. */
function pagesOf(count: number, failAt?: number) {
  const asked: number[] = [];
  const release: (() => void)[] = [];
  let ended = false;
  async function* pages(): AsyncGenerator<number> {
    try {
      for (let page = 0; page < count; page += 1) {
        asked.push(page);
        await new Promise<void>((resolve) => release.push(resolve));
        if (page === failAt) throw new Error(`page ${page} could not be read`);
        yield page;
      }
    } finally {
      ended = true;
    }
  }
  return { pages, asked, release: () => release.shift()?.(), ended: () => ended };
}

describe('reading a search ahead', () => {
  it('asks for the next page as soon as one is handed on, and keeps the order', async () => {
    const source = pagesOf(3);
    const iterator = readingAhead(source.pages());
    const first = iterator.next();
    source.release();
    expect(await first).toEqual({ done: false, value: 0 });
    // While page 0 is being written, page 1 is already asked for.
    await Promise.resolve();
    expect(source.asked).toEqual([0, 1]);
    source.release();
    expect(await iterator.next()).toEqual({ done: false, value: 1 });
    source.release();
    expect(await iterator.next()).toEqual({ done: false, value: 2 });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(source.ended()).toBe(true);
  });

  it('throws a failed read where its page is awaited, never as an unhandled rejection', async () => {
    const source = pagesOf(3, 1);
    const seen: number[] = [];
    const reading = (async () => {
      for await (const page of readingAhead(source.pages())) {
        seen.push(page);
        source.release();
      }
    })();
    source.release();
    await expect(reading).rejects.toThrow('page 1 could not be read');
    expect(seen).toEqual([0]);
  });

  it('ends the search when the consumer stops early, once the page read ahead is in', async () => {
    const source = pagesOf(5);
    const consumer = (async () => {
      for await (const page of readingAhead(source.pages())) {
        if (page === 0) throw new Error('the store refused the page');
      }
    })();
    source.release();
    // The consumer's error is not held back by the page read ahead, which has not arrived.
    await expect(consumer).rejects.toThrow('the store refused the page');
    expect(source.asked).toEqual([0, 1]);
    expect(source.ended()).toBe(false);
    source.release();
    await vi.waitFor(() => expect(source.ended()).toBe(true));
    expect(source.asked).toEqual([0, 1]);
  });
});
