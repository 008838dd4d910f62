import { describe, expect, it } from 'vitest';
import { sharedService, startSharedServices } from './shared-services.js';

describe('the shared services of a run (testing/shared-services.ts)', () => {
  it('make each key once however many files ask side by side, refuse other input under a key, report failures, and clean up at the end', async () => {
    const made: unknown[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const cleaned: string[] = [];
    const services = await startSharedServices(
      {
        slow: async (input) => {
          made.push(input);
          await held;
          return { made: input };
        },
        broken: () => Promise.reject(new Error('samba not found: apt-get install samba')),
      },
      [async () => void cleaned.push('first'), async () => void cleaned.push('second')],
    );
    try {
      const asks = Array.from({ length: 6 }, () => sharedService('slow', { n: 1 }, 'a', services.url));
      const other = sharedService('slow', { n: 2 }, 'b', services.url);
      // Held until both keys are being made: the asks of key a, before or after, share one making.
      await expect.poll(() => made.length).toBe(2);
      release();
      expect(await Promise.all(asks)).toEqual(Array.from({ length: 6 }, () => ({ made: { n: 1 } })));
      expect(await other).toEqual({ made: { n: 2 } });
      expect(made).toEqual([{ n: 1 }, { n: 2 }]);
      await expect(sharedService('slow', { n: 3 }, 'a', services.url)).rejects.toThrow(
        /made with \{"n":1\} and is now asked for with \{"n":3\}/,
      );
      await expect(sharedService('broken', null, '', services.url)).rejects.toThrow(
        'the shared broken (): samba not found: apt-get install samba',
      );
      await expect(sharedService('nothing', null, '', services.url)).rejects.toThrow(
        /no shared service nothing/,
      );
    } finally {
      release();
      await services.stop();
    }
    expect(cleaned).toEqual(['second', 'first']);
  });
});
