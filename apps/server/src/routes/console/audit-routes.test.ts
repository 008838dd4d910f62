import { parse } from 'csv-parse/sync';
import { describe, vi } from 'vitest';
import { AUDIT_EVENTS } from '../../domain/audit/audit-events.js';
import { CSV_PAGE } from '../../domain/audit/audit-view.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

/** A console session past its passkey (the passkey itself runs in Chromium, see e2e). */
async function viewer(t: TestApp, role: string) {
  return (await consoleAgent(t, '/dea/admin-api', role)).get;
}

describe.each(DOOR_STORE_KINDS)('the console audit view on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'filters by event, user, actor and time, pages with a cursor, and exports CSV',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const get = await viewer(t, 'auditor');
      const user = await t.createUser();
      const start = t.clock.now();
      for (let index = 0; index < 7; index += 1) {
        await t.services.store.audit.append(
          {
            event: 'code.verify_failed',
            userId: user.id,
            actor: index % 2 === 0 ? 'radius:10.0.0.5' : '=cmd|calc',
            details: { reason: 'no-usable-code', n: index },
          },
          start + index * 1000,
        );
      }
      const filter = `event=code.verify_failed&username=${user.username}`;
      const first = (await get(`/audit?${filter}&limit=3`)).json<{
        result: { entries: { details: { n: number } }[]; next: string };
      }>();
      expect(first.result.entries.map((entry) => entry.details.n)).toEqual([6, 5, 4]);
      const second = (
        await get(`/audit?${filter}&limit=3&cursor=${encodeURIComponent(first.result.next)}`)
      ).json<{
        result: { entries: { details: { n: number } }[]; next: string | null };
      }>();
      expect(second.result.entries.map((entry) => entry.details.n)).toEqual([3, 2, 1]);
      const third = (
        await get(`/audit?${filter}&limit=3&cursor=${encodeURIComponent(second.result.next ?? '')}`)
      ).json<{
        result: { entries: unknown[]; next: string | null };
      }>();
      expect(third.result).toMatchObject({
        entries: [{ username: user.username, actor: 'radius:10.0.0.5' }],
        next: null,
      });

      const since = new Date(start + 2000).toISOString();
      const until = new Date(start + 5000).toISOString();
      const window = (
        await get(`/audit?${filter}&actor=radius:10.0.0.5&since=${since}&until=${until}`)
      ).json<{
        result: { entries: { details: { n: number } }[] };
      }>();
      expect(window.result.entries.map((entry) => entry.details.n)).toEqual([4, 2]);
      expect((await get('/audit?username=nobody-at-all')).json()).toMatchObject({
        result: { entries: [], next: null },
      });
      expect((await get('/audit?since=yesterday')).statusCode).toBe(400);

      const csv = await get(`/audit.csv?${filter}`);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(csv.headers['content-disposition']).toBe('attachment; filename="dea-audit.csv"');
      const rows = parse<Record<string, string>>(csv.body, { columns: true });
      expect(rows).toHaveLength(7);
      expect(rows[0]).toMatchObject({
        event: 'code.verify_failed',
        username: user.username,
        actor: 'radius:10.0.0.5',
      });
      // A cell a spreadsheet would run as a formula is defused.
      expect(rows[1]?.actor).toBe("'=cmd|calc");
      expect(JSON.parse(rows[0]?.details ?? '{}')).toEqual({ reason: 'no-usable-code', n: 6 });
    },
  );

  appTest(
    'streams every entry of the CSV, more than 10,000, reading the store a page at a time',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const get = await viewer(t, 'auditor');
      const user = await t.createUser();
      const count = 10_050;
      const start = t.clock.now();
      for (let first = 0; first < count; first += 250)
        await Promise.all(
          Array.from({ length: Math.min(250, count - first) }, (_, offset) =>
            t.services.store.audit.append(
              {
                event: 'code.verify_failed',
                userId: user.id,
                actor: 'radius',
                details: { n: first + offset },
              },
              start + first + offset,
            ),
          ),
        );
      const list = vi.spyOn(t.services.store.audit, 'list');
      const csv = await get('/audit.csv?event=code.verify_failed');
      expect(csv.statusCode).toBe(200);
      const rows = parse<Record<string, string>>(csv.body, { columns: true });
      expect(rows).toHaveLength(count);
      expect(JSON.parse(rows[0]?.details ?? '{}')).toEqual({ n: count - 1 });
      expect(JSON.parse(rows.at(-1)?.details ?? '{}')).toEqual({ n: 0 });
      expect(new Set(rows.map((row) => row.details)).size).toBe(count);
      expect(rows.every((row) => row.username === user.username)).toBe(true);
      // Keyset pages of CSV_PAGE entries, never the whole filter at once.
      expect(list.mock.calls.map(([filter]) => filter.limit)).toEqual(
        new Array<number>(Math.ceil(count / CSV_PAGE)).fill(CSV_PAGE),
      );
      list.mockRestore();
    },
    180_000,
  );

  appTest('offers the events the audit log can hold, to its readers', async ({ startApp, expect }) => {
    const t = await startApp();
    const answer = (await (await viewer(t, 'auditor'))('/audit/events')).json<{
      result: { events: { name: string; description: string }[] };
    }>();
    expect(answer.result.events.map((event) => event.name)).toEqual(Object.keys(AUDIT_EVENTS).sort());
    expect(answer.result.events).toContainEqual({
      name: 'code.used',
      description: AUDIT_EVENTS['code.used'],
    });
    expect((await (await viewer(t, 'helpdesk'))('/audit/events')).statusCode).toBe(403);
  });

  appTest('is for auditors and administrators only', async ({ startApp, expect }) => {
    const t = await startApp();
    expect((await (await viewer(t, 'helpdesk'))('/audit')).statusCode).toBe(403);
    expect((await (await viewer(t, 'helpdesk'))('/audit.csv')).statusCode).toBe(403);
    expect((await (await viewer(t, 'admin'))('/audit')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/dea/admin-api/audit' })).statusCode).toBe(401);
  });
});
