import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { openStore } from '../store/open-store.js';
import { type CliFixture, openCliFixture, storeSnapshot } from '../testing/cli.js';
import { cutoffsAt } from '../testing/purge-cutoffs.js';
import { STORE_KINDS } from '../testing/stores.js';

const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);
const DAY = 86_400_000;
const HOUR = 3_600_000;

describe.each(STORE_KINDS)('dea purge and dea codes purge on %s', (kind) => {
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
      channels: [],
    });
    return id;
  }

  /** Rows of every kind, some past their retention and some not. */
  async function fill(): Promise<void> {
    await issue(NOW - 1);
    const used = await issue(NOW + 600_000);
    expect(await cli.store.codes.consume(used, NOW - 10)).toBe(true);
    await issue(NOW + 600_000);
    // Ended two hours ago (kept one hour), ended just now, idle past 30 minutes and an hour, live.
    await cli.store.sessions.create({
      idHash: newId(),
      userId,
      createdAt: NOW - 3 * HOUR,
      lastSeenAt: NOW - 2 * HOUR,
    });
    const ended = newId();
    await cli.store.sessions.create({
      idHash: ended,
      userId,
      createdAt: NOW - 3 * HOUR,
      lastSeenAt: NOW - 2 * HOUR,
    });
    await cli.store.sessions.end(ended, NOW - 2 * HOUR);
    const endedNow = newId();
    await cli.store.sessions.create({
      idHash: endedNow,
      userId,
      createdAt: NOW - HOUR,
      lastSeenAt: NOW - 60_000,
    });
    await cli.store.sessions.end(endedNow, NOW - 60_000);
    await cli.store.sessions.create({
      idHash: newId(),
      userId,
      createdAt: NOW - HOUR,
      lastSeenAt: NOW - 60_000,
    });
    for (const age of [400 * DAY, 366 * DAY, 10 * DAY]) {
      await cli.store.audit.append({ event: 'system.start' }, NOW - age);
      await cli.store.outbox.add({
        id: newId(),
        createdAt: NOW - age,
        channelType: 'email',
        userId,
        idempotencyKey: newId(),
        sealed: 'sealed',
      });
    }
  }

  it('says what would go without removing anything, then removes it and audits it', async () => {
    await fill();
    const before = await storeSnapshot(cli.store);
    const dry = await cli.run(['purge', '--dry-run'], { now: NOW });
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('dea purge would remove, now:');
    expect(dry.out).toMatch(/ 2 {2}used, revoked or expired codes/);
    // The session ended two hours ago and the one idle for two hours (idle limit 30 min + 1 h).
    expect(dry.out).toMatch(/ 2 {2}ended or expired sessions/);
    expect(dry.out).toMatch(/ 2 {2}audit entries past DEA_RETENTION_AUDIT_DAYS/);
    expect(dry.out).toMatch(/ 3 {2}outbox messages past DEA_RETENTION_OUTBOX_DAYS/);
    expect(dry.out).toContain(
      'Audit entries are kept 365 days, outbox messages 7 days. Nothing was removed.',
    );
    expect(await storeSnapshot(cli.store)).toEqual(before);

    const run = await cli.run(['purge'], { now: NOW, env: { DEA_PURGE_BATCH_SIZE: '10' } });
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toMatch(/ 2 {2}used, revoked or expired codes/);
    expect(run.out).toMatch(/ 2 {2}audit entries past/);
    expect(await cli.store.codes.countActive(userId, NOW)).toBe(1);
    expect(await cli.store.sessions.listOpenOfUser(userId)).toHaveLength(1);
    expect(await cli.store.outbox.list(100, userId)).toHaveLength(0);
    const [purged] = await cli.store.audit.list({ event: 'store.purged' });
    expect(purged).toMatchObject({
      actor: 'cli',
      details: { removed: { codes: 2, sessions: 2, audit: 2, outbox: 3 } },
    });
    const again = await cli.run(['purge', '--dry-run'], { now: NOW });
    expect(again.out).not.toMatch(/ [1-9]\d* {2}/);
  });

  it('keeps audit entries and outbox messages for ever at 0 days', async () => {
    await cli.store.audit.append({ event: 'system.start' }, NOW - 5000 * DAY);
    const kept = await cli.run(['purge', '--dry-run'], {
      now: NOW,
      env: { DEA_RETENTION_AUDIT_DAYS: '0', DEA_RETENTION_OUTBOX_DAYS: '0' },
    });
    expect(kept.out).toMatch(/ 0 {2}audit entries/);
    expect(kept.out).toContain('Audit entries are kept for ever, outbox messages for ever.');
  });

  it('removes many rows in batches, and exactly once when purges run at once on two instances', async () => {
    for (let index = 0; index < 120; index += 1)
      await cli.store.audit.append({ event: 'system.start' }, NOW - 400 * DAY);
    const second = await openStore({
      databaseUrl: cli.testStore.databaseUrl,
      dataDir: cli.testStore.dataDir,
    });
    try {
      const env = { DEA_PURGE_BATCH_SIZE: '10' };
      const oldAudit = cutoffsAt(NOW, { auditBefore: NOW - 365 * DAY });
      const purgeable = await second.retention.count('audit', oldAudit);
      expect(purgeable).toBeGreaterThanOrEqual(120);
      const earlier = (await second.audit.list({ event: 'store.purged', limit: 100 })).length;
      const runs = await Promise.all(Array.from({ length: 6 }, () => cli.run(['purge'], { now: NOW, env })));
      const ran = runs.filter((run) => run.code === 0);
      const refused = runs.filter((run) => run.code !== 0);
      expect(ran.length).toBeGreaterThanOrEqual(1);
      for (const run of refused) expect(run.err).toContain('another purge is running (dea purge on');
      const audits = (await second.audit.list({ event: 'store.purged', limit: 100 })).slice(
        0,
        -earlier || undefined,
      );
      expect(audits.length).toBeLessThanOrEqual(ran.length);
      const removed = audits.reduce(
        (sum, entry) => sum + Number((entry.details.removed as { audit?: number }).audit ?? 0),
        0,
      );
      expect(removed).toBe(purgeable);
      expect(await second.retention.count('audit', oldAudit)).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('purges codes alone with dea codes purge', async () => {
    await issue(NOW - 1);
    await cli.store.audit.append({ event: 'system.start' }, NOW - 400 * DAY);
    const result = await cli.run(['codes', 'purge'], { now: NOW });
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^Removed:\n +1 {2}used, revoked or expired codes$/);
    expect(await cli.run(['purge', '--dry-run'], { now: NOW })).toMatchObject({
      out: expect.stringMatching(/ 1 {2}audit entries/),
    });
  });

  it('refuses arguments and unknown commands', async () => {
    expect(await cli.run(['codes', 'purge', 'all'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('unexpected argument "all"'),
    });
    expect(await cli.run(['purge', 'now'])).toMatchObject({ code: 2, err: expect.stringContaining('"now"') });
    expect(await cli.run(['codes', 'list'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('Unknown command: dea codes list'),
    });
    expect(await cli.run(['purge'], { env: { DEA_PURGE_BATCH_SIZE: '5' } })).toMatchObject({
      code: 2,
      err: expect.stringContaining('DEA_PURGE_BATCH_SIZE="5"'),
    });
  });
});
