import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { type CliFixture, openCliFixture } from '../testing/cli.js';
import { STORE_KINDS } from '../testing/stores.js';

const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);

describe.each(STORE_KINDS)('dea codes purge on %s', (kind) => {
  let cli: CliFixture;
  let userId: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    userId = await cli.addUser('dana');
  });
  afterAll(() => cli.dispose());

  async function issue(expiresAt: number, uses = 1): Promise<string> {
    const id = newId();
    const code = {
      id,
      userId,
      codeHash: `hash-${id}`,
      createdAt: NOW - 60_000,
      expiresAt,
      uses,
      channelType: null,
    };
    expect(await cli.store.codes.issue(code, 100, { event: 'code.issued', userId })).toEqual({
      issued: true,
    });
    return id;
  }

  it('removes used and expired codes and keeps usable ones', async () => {
    await issue(NOW - 1);
    await issue(NOW - 1000);
    const used = await issue(NOW + 600_000);
    expect(await cli.store.codes.consume(used, NOW - 10)).toBe(true);
    const usable = await issue(NOW + 600_000);
    const result = await cli.run(['codes', 'purge'], { now: NOW });
    expect(result).toEqual({ code: 0, out: 'Removed 3 used or expired codes.', err: '' });
    expect((await cli.store.codes.listActive(userId, NOW)).map((code) => code.id)).toEqual([usable]);
    expect(await cli.run(['codes', 'purge'], { now: NOW })).toMatchObject({
      out: 'Removed 0 used or expired codes.',
    });
    expect(await cli.store.audit.list({ event: 'codes.purged' })).toHaveLength(2);
  });

  it('refuses arguments and unknown commands', async () => {
    expect(await cli.run(['codes', 'purge', 'all'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('unexpected argument "all"'),
    });
    expect(await cli.run(['codes', 'list'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('Unknown command: dea codes list'),
    });
    expect(await cli.store.codes.countActive(userId, NOW)).toBe(1);
  });
});
