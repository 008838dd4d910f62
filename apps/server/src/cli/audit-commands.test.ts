import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../store/store.js';
import { beginAuditTrail, sealAuditTrail, verifyAuditTrail } from '../domain/audit/audit-trail.js';
import { checkSecretFingerprint } from '../store/secret-fingerprint.js';
import { CLI_SECRET, type CliFixture, openCliFixture } from '../testing/cli.js';
import { DOOR_STORE_KINDS, TEST_STORE_KEYS } from '../testing/stores.js';
import { execRaw } from '../testing/store-dump.js';
import { followAudit, parseSince } from './audit-commands.js';

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);
const MINUTE = 60_000;

describe('parseSince', () => {
  it('reads ages and ISO times', () => {
    expect(parseSince('15m', T0)).toBe(T0 - 15 * MINUTE);
    expect(parseSince('2h', T0)).toBe(T0 - 120 * MINUTE);
    expect(parseSince('1d', T0)).toBe(T0 - 1440 * MINUTE);
    expect(parseSince('30s', T0)).toBe(T0 - 30_000);
    expect(parseSince('2026-11-21T08:00:00Z', T0)).toBe(T0 - 60 * MINUTE);
    expect(parseSince('2026-11-21', T0)).toBe(Date.UTC(2026, 10, 21));
    for (const bad of ['yesterday', '15 minutes', '2026-13-45', '-1h', ''])
      expect(() => parseSince(bad, T0)).toThrow('--since');
  });
});

describe.each(DOOR_STORE_KINDS)('dea audit on %s', (kind) => {
  let cli: CliFixture;
  let userId: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    userId = await cli.addUser('gina');
    await cli.store.audit.append(
      {
        event: 'code.issued',
        userId,
        actor: userId,
        clientAddress: '192.0.2.7',
        details: { channelType: 'sms' },
      },
      T0 - 90 * MINUTE,
    );
    await cli.store.audit.append(
      { event: 'code.used', userId, actor: 'service-key:vpn', details: {} },
      T0 - 30 * MINUTE,
    );
    await cli.store.audit.append(
      {
        event: 'signin.failed',
        userId: null,
        clientAddress: '192.0.2.8',
        details: { reason: 'unknown-user' },
      },
      T0 - 5 * MINUTE,
    );
  });
  afterAll(() => cli.dispose());

  it('lists entries oldest first, with user names, filtered', async () => {
    const all = await cli.run(['audit', 'list'], { now: T0 });
    expect(all.code).toBe(0);
    expect(all.out.split('\n')).toEqual([
      '2026-11-21T07:30:00.000Z  code.issued  user=gina  actor=' +
        userId +
        '  from=192.0.2.7  {"channelType":"sms"}',
      '2026-11-21T08:30:00.000Z  code.used  user=gina  actor=service-key:vpn',
      '2026-11-21T08:55:00.000Z  signin.failed  from=192.0.2.8  {"reason":"unknown-user"}',
    ]);
    expect((await cli.run(['audit', 'list', '--user', 'gina'], { now: T0 })).out.split('\n')).toHaveLength(2);
    expect((await cli.run(['audit', 'list', '--event', 'code.used'], { now: T0 })).out).toContain(
      'code.used  user=gina',
    );
    expect((await cli.run(['audit', 'list', '--since', '1h'], { now: T0 })).out.split('\n')).toHaveLength(2);
    expect((await cli.run(['audit', 'list', '--since', '2026-11-21T08:50:00Z'])).out).toContain(
      'signin.failed',
    );
    expect((await cli.run(['audit', 'list', '--limit', '1'])).out).toContain('signin.failed');
    const json = JSON.parse((await cli.run(['audit', 'list', '--user', 'gina', '--json'])).out) as Record<
      string,
      unknown
    >[];
    expect(json[0]).toMatchObject({ event: 'code.issued', username: 'gina', at: '2026-11-21T07:30:00.000Z' });
    expect(await cli.run(['audit', 'list', '--event', 'nothing.like.this'])).toMatchObject({
      code: 0,
      out: 'No audit entries.',
    });
  });

  it('refuses bad filters with one line', async () => {
    const refusals: [string[], string][] = [
      [['audit', 'list', '--since', 'yesterday'], '--since "yesterday" must be an ISO time'],
      [['audit', 'list', '--limit', '0'], '--limit must be a positive whole number'],
      [['audit', 'list', 'gina'], 'unexpected argument "gina"'],
      [['audit', 'follow', '--since', 'soon'], '--since "soon"'],
      [['audit', 'tail'], 'Unknown command: dea audit tail'],
    ];
    for (const [argv, message] of refusals) {
      const result = await cli.run(argv);
      expect({ argv, ...result }).toMatchObject({
        argv,
        code: 2,
        out: '',
        err: expect.stringContaining(message),
      });
      expect(result.err.split('\n')).toHaveLength(1);
    }
  });

  it('follows: prints the newest entries, then new ones as they are written, until interrupted', async () => {
    const controller = new AbortController();
    const written = T0 - 10 * MINUTE;
    const result = await cli.run(['audit', 'follow', '--limit', '2', '--user', 'gina'], {
      interrupted: controller.signal,
      onOut: (line) => {
        if (line.includes('code.used') && !line.includes('"later"')) {
          void cli.store.audit.append(
            { event: 'code.issued', userId, details: { note: 'while following' } },
            written,
          );
          void cli.store.audit.append({ event: 'code.used', userId, details: { later: true } }, written);
          void cli.store.audit.append(
            { event: 'code.used', userId: null, details: { later: false } },
            written,
          );
        }
        if (line.includes('"later"')) controller.abort();
      },
    });
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toContain('code.issued  user=gina');
    expect(lines[1]).toContain('code.used  user=gina  actor=service-key:vpn');
    expect(lines.slice(2)).toEqual([
      `${new Date(written).toISOString()}  code.issued  user=gina  {"note":"while following"}`,
      `${new Date(written).toISOString()}  code.used  user=gina  {"later":true}`,
    ]);
  });

  it('follows without showing an entry twice when several share a millisecond', async () => {
    const at = T0 + 10 * MINUTE;
    const printed: AuditEntry[] = [];
    let polls = 0;
    await followAudit({
      store: cli.store,
      filter: { event: 'system.start' },
      backlog: 10,
      signal: new AbortController().signal,
      intervalMs: 1,
      maxPolls: 4,
      print: (entry) => {
        printed.push(entry);
      },
    }).then(() => undefined);
    expect(printed).toEqual([]);
    const writer = async () => {
      polls += 1;
      await cli.store.audit.append({ event: 'system.start', details: { n: polls } }, at);
    };
    await writer();
    const follow = followAudit({
      store: cli.store,
      filter: { event: 'system.start' },
      backlog: 10,
      signal: new AbortController().signal,
      intervalMs: 20,
      maxPolls: 5,
      print: async (entry) => {
        printed.push(entry);
        if (printed.length < 3) await writer();
      },
    });
    await follow;
    expect(printed.map((entry) => entry.details.n)).toEqual([1, 2, 3]);
  });

  it('what dea writes in bulk (an import) and through groups is stamped, sealed and verifies; nothing is set aside', async () => {
    const own = await openCliFixture(kind);
    const folder = mkdtempSync(join(tmpdir(), 'dea-audit-import-'));
    try {
      const csv = join(folder, 'people.csv');
      writeFileSync(
        csv,
        [
          'username,fullName,group,email',
          'anna,Anna Berg,Staff,anna@example.com',
          'ben,Ben Carter,,ben@example.com',
        ].join('\n'),
      );
      expect(await own.run(['group', 'add', '--name', 'Staff', '--priority', '5'])).toMatchObject({
        code: 0,
      });
      expect(await own.run(['user', 'import', csv])).toMatchObject({ code: 0 });
      expect(await own.store.auditTrail.refusedCount()).toBe(0);
      expect(await own.store.auditTrail.unsealedCount()).toBe(0);
      const events = (await own.store.auditTrail.sealedAfter(0, 100)).map(({ event }) => event);
      expect(events).toEqual(expect.arrayContaining(['group.created', 'user.created', 'users.imported']));
      expect(await own.run(['audit', 'verify'])).toMatchObject({ code: 0 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await own.dispose();
    }
  });

  it('during a rotation no server recorded yet, dea stamps and seals under the store’s secret, which the servers still on it take', async () => {
    const own = await openCliFixture(kind);
    try {
      const old = TEST_STORE_KEYS;
      // A server started on the store with the old secret: the trail begun, the secret recorded.
      await beginAuditTrail(own.store, old, T0);
      await checkSecretFingerprint(own.store, old, true, T0);
      const rotating = {
        env: { DEA_SECRET: Buffer.alloc(32, 10).toString('base64'), DEA_SECRET_PREVIOUS: CLI_SECRET },
      };
      await own.run(['user', 'add', '--username', 'ivo', '--full-name', 'Ivo', '--password-stdin'], {
        ...rotating,
        stdin: 'a-long-enough-passw0rd',
      });
      // Written by dea with the new secret: a server still running with the old one alone seals it.
      await own.store.audit.append({ event: 'system.start', details: {} }, T0);
      await sealAuditTrail(own.store, old, T0);
      expect(await own.store.auditTrail.refusedCount()).toBe(0);
      expect(await own.store.auditTrail.unsealedCount()).toBe(0);
      const verified = await verifyAuditTrail(own.store, old);
      expect(verified).toMatchObject({ broken: undefined, forgedCount: 0 });
      expect((await own.store.auditTrail.sealedAfter(0, 100)).map(({ event }) => event)).toContain(
        'user.created',
      );
      expect(await own.run(['audit', 'verify'], rotating)).toMatchObject({ code: 0 });
    } finally {
      await own.dispose();
    }
  });

  it('verify: passes on the untouched trail, then names the entry changed, removed or moved behind its back', async () => {
    const own = await openCliFixture(kind);
    try {
      await own.addUser('hana');
      for (const name of ['Hana A', 'Hana B', 'Hana C'])
        expect(await own.run(['user', 'update', 'hana', '--full-name', name])).toMatchObject({ code: 0 });
      const ok = await own.run(['audit', 'verify']);
      expect(ok).toMatchObject({ code: 0, err: '' });
      expect(ok.out).toMatch(
        /^The audit trail verifies: \d+ entries, #1 to #\d+\.\nNot proven without an exported copy/,
      );
      const sealed = await own.store.auditTrail.sealedAfter(0, 100);
      const second = sealed[1];
      expect(second).toBeDefined();
      await execRaw(own.testStore, `update audit_log set actor = 'someone else' where id = $1`, [second?.id]);
      const changed = await own.run(['audit', 'verify']);
      expect(changed.code).toBe(1);
      expect(changed.err).toContain(`entry #2 (${second?.id ?? ''}, ${second?.event ?? ''} at`);
      expect(changed.err).toContain('changed');
      // From a later time on, what follows still verifies.
      const since = new Date((sealed[2]?.at ?? 0) + 0).toISOString();
      expect(await own.run(['audit', 'verify', '--since', since])).toMatchObject({ code: 0 });
      await execRaw(own.testStore, `delete from audit_log where id = $1`, [second?.id]);
      expect((await own.run(['audit', 'verify'])).err).toContain('entry #2 of the trail is missing');
    } finally {
      await own.dispose();
    }
  });
});
