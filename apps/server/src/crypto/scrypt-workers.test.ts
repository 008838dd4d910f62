import { randomBytes, scryptSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password-hash.js';
import { ScryptWorkers } from './scrypt-workers.js';

const options = (logN: number) => ({ N: 2 ** logN, r: 8, p: 1, maxmem: 256 * 2 ** logN * 8 + 1024 * 1024 });

describe('ScryptWorkers', () => {
  it("derives what Node's scrypt derives, and stored hashes check either way", async () => {
    const workers = new ScryptWorkers(2);
    try {
      const salt = randomBytes(16);
      expect(
        (await workers.derive('pässword', salt, 32, options(10))).equals(
          scryptSync('pässword', salt, 32, options(10)),
        ),
      ).toBe(true);
      const stored = await hashPassword('correct horse', 10, workers.derive);
      expect(await verifyPassword('correct horse', stored)).toBe(true);
      expect(
        await verifyPassword('correct horse', await hashPassword('correct horse', 10), workers.derive),
      ).toBe(true);
      expect(await verifyPassword('wrong horse', stored, workers.derive)).toBe(false);
    } finally {
      await workers.close();
    }
  });

  it('leaves libuv threads to files while its threads hash', async () => {
    const workers = new ScryptWorkers(4);
    try {
      // Four heavy hashes at once: on libuv's pool they would take all four of its threads.
      const hashes = Array.from({ length: 4 }, () => workers.derive('x', randomBytes(16), 32, options(16)));
      let aHashEnded = false;
      void Promise.race(hashes).then(() => {
        aHashEnded = true;
      });
      await readFile(fileURLToPath(import.meta.url));
      // The file was read while every hash still ran: on libuv's pool it would wait for one to end.
      expect(aHashEnded).toBe(false);
      const hashed = await Promise.all(hashes);
      expect(hashed.every((key) => key.length === 32)).toBe(true);
    } finally {
      await workers.close();
    }
  });

  it('fails what is still waiting when closed, and takes nothing more', async () => {
    const workers = new ScryptWorkers(1);
    const outcome = (hash: Promise<Buffer>) =>
      hash.then(
        () => 'hashed',
        (error: Error) => error.message,
      );
    const running = outcome(workers.derive('a', randomBytes(16), 32, options(15)));
    const waiting = outcome(workers.derive('b', randomBytes(16), 32, options(10)));
    await workers.close();
    expect(await waiting).toMatch(/closed/);
    expect(await running).toMatch(/closed|stopped/);
    await expect(workers.derive('c', randomBytes(16), 32, options(10))).rejects.toThrow('closed');
  });
});
