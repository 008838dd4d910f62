import { parse } from 'csv-parse/sync';
import { describe } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const API = '/dea/admin-api';
const NO_SUCH_USER = 'no-such-user';

type Agent = Awaited<ReturnType<typeof consoleAgent>>;

/** Every help-desk route on one user, as an agent would call it. */
function everyRoute(agent: Agent, userId: string, recipient: string) {
  const base = `/helpdesk/users/${userId}`;
  return {
    view: () => agent.get(base),
    issue: () => agent.post(`${base}/codes`, { reason: 'Ticket 31, a call from outside' }),
    send: () => agent.post(`${base}/codes/send`, { reason: 'Ticket 31, a call from outside', recipient }),
    revoke: () => agent.post(`${base}/codes/revoke`, {}),
    unlock: () => agent.post(`${base}/unlock`),
    endSessions: () => agent.post(`${base}/sessions/end`),
  };
}

/** Two users in groups of their own, each with a code on screen and an open session. */
async function twoUsers(t: TestApp) {
  const inside = await t.createUser({ channels: { mobile: '+491705550111' } });
  const outside = await t.createUser({ channels: { mobile: '+491705550222' } });
  await t.codeOnScreen(inside);
  await t.codeOnScreen(outside);
  return { inside, outside, scope: `group-${inside.username}` };
}

const found = (answer: { json: <T>() => T }) =>
  answer.json<{ result: { users: { id: string }[] } }>().result.users.map((user) => user.id);

describe.each(DOOR_STORE_KINDS)('scoped console roles on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'a scoped help-desk agent reaches no one outside their groups, by search or by id in any route, and is answered as for a user that does not exist',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { inside, outside, scope } = await twoUsers(t);
      const agent = await consoleAgent(t, API, 'helpdesk', true, ['--scope', scope]);
      const { store } = t.services;
      const outsideChannel = (await store.channels.listOfUser(outside.id))[0]?.id ?? '';

      // Search: by user name, full name and the last digits of a channel.
      for (const q of [outside.username, `Test ${outside.username}`, '5550222'])
        expect(found(await agent.get(`/helpdesk/users?q=${encodeURIComponent(q)}`)), q).toEqual([]);
      expect(found(await agent.get(`/helpdesk/users?q=${inside.username}`))).toEqual([inside.id]);
      expect(found(await agent.get('/helpdesk/users?q=user-'))).toEqual([inside.id]);

      // Every route by id: the same answer as for an id nobody has.
      const toOutside = everyRoute(agent, outside.id, outsideChannel);
      const toNobody = everyRoute(agent, NO_SUCH_USER, outsideChannel);
      for (const route of Object.keys(toOutside) as (keyof typeof toOutside)[]) {
        const [outsider, nobody] = [await toOutside[route](), await toNobody[route]()];
        expect(outsider.statusCode, route).toBe(404);
        expect({ status: outsider.statusCode, body: outsider.json() }, route).toEqual({
          status: nobody.statusCode,
          body: nobody.json(),
        });
        expect(outsider.body, route).not.toContain(outside.username);
      }
      // And nothing was done to them.
      expect(await store.codes.countActive(outside.id, t.clock.now())).toBe(1);
      expect(await store.sessions.listOpenOfUser(outside.id)).toHaveLength(1);
      expect(await store.audit.list({ userId: outside.id, actor: `console:${agent.username}` })).toEqual([]);

      // The user inside is helped as before.
      expect((await agent.get(`/helpdesk/users/${inside.id}`)).statusCode).toBe(200);
      const issued = await agent.post(`/helpdesk/users/${inside.id}/codes`, { reason: 'Ticket 31, inside' });
      expect(issued.json()).toMatchObject({ error: 0, result: { code: expect.any(String) } });
      expect((await agent.post(`/helpdesk/users/${inside.id}/sessions/end`)).json()).toMatchObject({
        error: 0,
        result: { count: 1 },
      });

      // An unscoped agent and an administrator are not limited.
      for (const role of ['helpdesk', 'admin']) {
        const other = await consoleAgent(t, API, role);
        expect(found(await other.get(`/helpdesk/users?q=${outside.username}`)), role).toEqual([outside.id]);
        expect((await other.get(`/helpdesk/users/${outside.id}`)).statusCode, role).toBe(200);
      }
    },
  );

  appTest(
    "a scoped auditor's audit log and CSV hold only entries about members of their groups, filtered by the store",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { inside, outside, scope } = await twoUsers(t);
      const { store } = t.services;
      const start = t.clock.now();
      // The newest entries are the outsider's: a page filtered after the store's limit would be empty.
      await store.audit.append({ event: 'code.verify_failed', userId: inside.id, details: {} }, start + 1000);
      for (let index = 0; index < 5; index += 1)
        await store.audit.append(
          { event: 'code.verify_failed', userId: outside.id, details: {} },
          start + 2000 + index,
        );
      const auditor = await consoleAgent(t, API, 'auditor', true, ['--scope', scope]);

      const page = (await auditor.get('/audit?event=code.verify_failed&limit=1')).json<{
        result: { entries: { userId: string }[] };
      }>();
      expect(page.result.entries.map((entry) => entry.userId)).toEqual([inside.id]);
      const all = (await auditor.get('/audit?limit=500')).json<{
        result: { entries: { userId: string | null }[] };
      }>();
      expect(all.result.entries.length).toBeGreaterThan(1);
      expect(new Set(all.result.entries.map((entry) => entry.userId))).toEqual(new Set([inside.id]));

      // By the outsider's name: as for a name nobody has.
      const byName = await auditor.get(`/audit?username=${outside.username}`);
      const byNobody = await auditor.get('/audit?username=nobody-at-all');
      expect(byName.json()).toEqual(byNobody.json());
      expect(byName.json()).toMatchObject({ error: 0, result: { entries: [] } });

      const csv = await auditor.get('/audit.csv');
      expect(csv.statusCode).toBe(200);
      const rows: { userId: string }[] = parse(csv.body, { columns: true });
      expect(rows.length).toBeGreaterThan(1);
      expect(new Set(rows.map((row) => row.userId))).toEqual(new Set([inside.id]));
      expect(csv.body).not.toContain(outside.id);
      expect(csv.body).not.toContain(outside.username);
      const outsiderCsv = await auditor.get(`/audit.csv?username=${outside.username}`);
      expect(parse(outsiderCsv.body, { columns: true })).toEqual([]);

      // An unscoped auditor and an administrator see the outsider's entries.
      for (const role of ['auditor', 'admin']) {
        const other = await consoleAgent(t, API, role);
        const theirs = (
          await other.get(`/audit?username=${outside.username}&event=code.verify_failed`)
        ).json<{
          result: { entries: unknown[] };
        }>();
        expect(theirs.result.entries, role).toHaveLength(5);
        expect((await other.get('/audit.csv')).body, role).toContain(outside.id);
      }
    },
  );

  appTest(
    'dea admin sets and lifts a scope, refuses one for an administrator, and the scope holds from the next request',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { outside, scope } = await twoUsers(t);
      const agent = await consoleAgent(t, API, 'helpdesk', true, ['--scope', scope]);
      expect((await agent.get(`/helpdesk/users/${outside.id}`)).statusCode).toBe(404);

      const lifted = await t.dea(['admin', 'scope', agent.username, '--none']);
      expect(lifted).toMatchObject({ code: 0, out: expect.stringContaining('no longer limited') });
      expect((await agent.get(`/helpdesk/users/${outside.id}`)).statusCode).toBe(200);

      const set = await t.dea(['admin', 'scope', agent.username, '--group', scope, '--group', 'Staff EU']);
      expect(set).toMatchObject({
        code: 0,
        out: expect.stringContaining('No group is named "Staff EU" yet'),
      });
      expect((await agent.get(`/helpdesk/users/${outside.id}`)).statusCode).toBe(404);
      const listed = JSON.parse((await t.dea(['admin', 'list', '--json'])).out) as {
        username: string;
        scope: string[] | null;
      }[];
      expect(listed.find((account) => account.username === agent.username)?.scope).toEqual([
        scope,
        'Staff EU',
      ]);
      expect(await t.services.store.audit.list({ event: 'console.account_changed' })).toMatchObject([
        { actor: 'cli', details: { username: agent.username, change: 'scope', scope: [scope, 'Staff EU'] } },
        { actor: 'cli', details: { username: agent.username, change: 'scope', scope: null } },
      ]);

      const admin = await t.dea(
        ['admin', 'add', '--username', 'root-eu', '--role', 'admin', '--scope', scope, '--password-stdin'],
        {},
        'a console password\n',
      );
      expect(admin).toMatchObject({
        code: 2,
        err: expect.stringContaining('--scope: a scope limits only helpdesk or auditor, not admin'),
      });
      const adminAgent = await consoleAgent(t, API, 'admin');
      expect(await t.dea(['admin', 'scope', adminAgent.username, '--group', scope])).toMatchObject({
        code: 1,
        err: expect.stringContaining('a scope limits only helpdesk or auditor, not admin'),
      });
    },
  );
});
