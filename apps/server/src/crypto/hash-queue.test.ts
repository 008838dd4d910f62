import { describe, expect, it } from 'vitest';
import { HashQueue } from './hash-queue.js';

describe('HashQueue', () => {
  it('runs at most `concurrency` tasks at once, queues `maxWaiting` more and refuses the rest at once', async () => {
    const queue = new HashQueue(2, 3);
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const task = () =>
      new Promise<number>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve(running);
        });
      });
    const accepted = Array.from({ length: 8 }, () => queue.tryRun(task));
    expect(accepted.filter((promise) => promise === undefined)).toHaveLength(3);
    expect(queue.load).toEqual({ running: 2, waiting: 3 });
    while (releases.length > 0 || queue.load.running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(accepted.filter((promise) => promise !== undefined));
    expect(most).toBe(2);
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
    expect(queue.tryRun(async () => 'again')).toBeDefined();
  });

  it('frees the slot of a task that fails', async () => {
    const queue = new HashQueue(1, 0);
    await expect(queue.tryRun(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.tryRun(async () => 'next')).toBe('next');
  });
});
