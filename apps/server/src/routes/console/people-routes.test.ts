import { PASSWORD_LINK_FRAGMENT, usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';

/** The token of a password link, as the login application reads it from the address. */
const tokenOf = (url: string) => new URL(url).hash.slice(1 + PASSWORD_LINK_FRAGMENT.length);

const useLink = (t: TestApp, token: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/login/api/password-link', payload: { token, password } });

const signIn = (t: TestApp, username: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/login/api/session', payload: { username, password } });

describe.each(STORE_KINDS)('people in the console on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'an administrator adds, edits, disables, enables and removes a user, audited',
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const added = await admin.post('/admin/people', {
        username: 'Nina.Novak',
        fullName: 'Nina Novak',
        locale: 'de',
        timeZone: 'Europe/Berlin',
      });
      expect(added.json()).toMatchObject({ error: 0 });
      const { id } = added.json<{ result: { id: string } }>().result;
      expect((await admin.get('/admin/people?q=nina')).json()).toMatchObject({
        result: {
          users: [{ id, username: 'nina.novak', fullName: 'Nina Novak', source: 'local', disabled: false }],
        },
      });
      // The same name again is refused with the reason.
      expect((await admin.post('/admin/people', { username: 'nina.novak', fullName: 'N' })).statusCode).toBe(
        400,
      );

      expect(
        (
          await admin.post(`/admin/people/${id}`, { fullName: 'Nina Nowak', locale: 'pl', timeZone: null })
        ).json(),
      ).toMatchObject({ result: { changed: ['fullName', 'locale', 'timeZone'] } });
      expect((await admin.post(`/admin/people/${id}`, { timeZone: 'Mars/Olympus' })).statusCode).toBe(400);
      const person = await admin.get(`/admin/people/${id}`);
      expect(person.json()).toMatchObject({
        result: {
          username: 'nina.novak',
          fullName: 'Nina Nowak',
          locale: 'pl',
          timeZone: null,
          source: 'local',
          editable: { fullName: true, locale: true, timeZone: true, password: true, disabled: true },
          channels: [],
        },
      });

      expect((await admin.post(`/admin/people/${id}/disable`)).json()).toMatchObject({
        result: { changed: ['disabled'] },
      });
      expect((await admin.post(`/admin/people/${id}/disable`)).json()).toMatchObject({
        result: { changed: [] },
      });
      expect((await admin.post(`/admin/people/${id}/enable`)).json()).toMatchObject({
        result: { changed: ['disabled'] },
      });
      expect((await admin.post(`/admin/people/${id}/remove`)).json()).toMatchObject({
        result: { changed: ['removal'] },
      });
      expect((await admin.get(`/admin/people/${id}`)).statusCode).toBe(404);
      const events = (await t.services.store.audit.list({ limit: 100 }))
        .filter((entry) => entry.actor === `console:${admin.username}`)
        .map((entry) => entry.event)
        .reverse();
      expect(events).toEqual([
        'user.created',
        'user.updated',
        'user.disabled',
        'user.enabled',
        'user.removed',
      ]);
    },
  );

  appTest(
    'ends sessions and changes groups; a help-desk agent and a session before its passkey are refused',
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const user = await t.createUser();
      await t.signIn(user);
      expect((await admin.post(`/admin/people/${user.id}/sessions/end`)).json()).toMatchObject({
        result: { changed: ['sessions'], sessionsEnded: 1 },
      });
      await t.services.store.groups.create({ id: 'g-vpn', name: 'VPN', priority: 5 });
      expect(
        (await admin.post(`/admin/people/${user.id}/groups`, { groupId: 'g-vpn', member: true })).json(),
      ).toMatchObject({
        result: { changed: ['groups'] },
      });
      const groups = (await admin.get(`/admin/people/${user.id}`)).json<{
        result: { groups: { name: string; member: boolean }[] };
      }>().result.groups;
      expect(groups.find((group) => group.name === 'VPN')).toMatchObject({ member: true });
      expect(
        (await admin.post(`/admin/people/${user.id}/groups`, { groupId: 'g-vpn', member: false })).json(),
      ).toMatchObject({
        result: { changed: ['groups'] },
      });

      const agent = await consoleAgent(t, BASE, 'helpdesk');
      expect((await agent.get('/admin/people')).statusCode).toBe(403);
      expect((await agent.post(`/admin/people/${user.id}/disable`)).statusCode).toBe(403);
      const early = await consoleAgent(t, BASE, 'admin', false);
      expect((await early.get('/admin/people')).statusCode).toBe(403);
      expect((await t.services.store.users.findById(user.id))?.disabled).toBe(false);
    },
  );

  appTest(
    'what SCIM or the directory owns is shown read-only with its source and refused with 409; the levers of an emergency stay',
    async ({ startApp }) => {
      const t = await startApp();
      const admin = await consoleAgent(t, BASE, 'admin');
      const user = await t.createUser();
      await t.services.store.users.update(user.id, { source: 'scim' });
      expect((await admin.get(`/admin/people/${user.id}`)).json()).toMatchObject({
        result: {
          source: 'scim',
          editable: { fullName: false, locale: false, password: true, disabled: true },
        },
      });
      const refused = await admin.post(`/admin/people/${user.id}`, { fullName: 'Someone Else' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json<{ message: string }>().message).toMatch(/SCIM/);
      expect((await admin.post(`/admin/people/${user.id}/disable`)).json()).toMatchObject({ error: 0 });

      const directoryUser = await t.createUser();
      await t.services.store.users.update(directoryUser.id, { source: 'ldap' });
      expect((await admin.post(`/admin/people/${directoryUser.id}/password-link`)).statusCode).toBe(409);
      // dea user password-link goes through the same module: the same refusal, naming the owner.
      const cli = await t.dea(['user', 'password-link', directoryUser.username]);
      expect(cli.code).toBe(1);
      expect(cli.err).toMatch(/directory/);
      const local = await t.dea(['user', 'password-link', user.username]);
      expect(local.code, local.err).toBe(0);
      expect(local.out).toMatch(/\/login\/#reset=/);
      expect((await admin.post(`/admin/people/${directoryUser.id}`, { locale: 'fr' })).json()).toMatchObject({
        result: { changed: ['locale'] },
      });
    },
  );

  appTest(
    'a password link sets a new password once, in parallel too, ends the sessions, and expires',
    async ({ startApp }) => {
      const t = await startApp({ DEA_PASSWORD_LINK_HOURS: '2' });
      const admin = await consoleAgent(t, BASE, 'admin');
      const user = await t.createUser();
      await t.signIn(user);
      const link = await admin.post(`/admin/people/${user.id}/password-link`);
      const { url, expiresAt } = link.json<{ result: { url: string; expiresAt: string } }>().result;
      expect(url).toMatch(/\/login\/#reset=/);
      expect(Date.parse(expiresAt) - t.clock.now()).toBe(2 * 3_600_000);
      const token = tokenOf(url);
      expect(JSON.stringify(await t.services.store.audit.list({ limit: 100 }))).not.toContain(token);

      expect((await useLink(t, token, 'short')).statusCode).toBe(400);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => useLink(t, token, `a new password ${index}`)),
      );
      const accepted = answers.flatMap((answer, index) =>
        answer.json<{ error: number }>().error === 0 ? [index] : [],
      );
      expect(accepted).toHaveLength(1);
      for (const answer of answers)
        if (answer.json<{ error: number }>().error !== 0)
          expect(answer.json<{ message: string }>().message).toMatch(/cannot be used/);
      expect((await signIn(t, user.username, user.password)).json()).toMatchObject({ error: 3 });
      expect((await signIn(t, user.username, `a new password ${accepted[0]}`)).json()).toMatchObject({
        error: 0,
      });
      expect(await t.services.store.audit.list({ event: 'user.password_set' })).toMatchObject([
        {
          userId: user.id,
          actor: `user:${user.username}`,
          details: { via: 'password-link', sessionsEnded: 1 },
        },
      ]);

      // A newer link replaces an unused one; a link past its time is refused.
      const first = tokenOf(
        (await admin.post(`/admin/people/${user.id}/password-link`)).json<{ result: { url: string } }>()
          .result.url,
      );
      const second = tokenOf(
        (await admin.post(`/admin/people/${user.id}/password-link`)).json<{ result: { url: string } }>()
          .result.url,
      );
      expect((await useLink(t, first, 'another password')).json()).toMatchObject({ error: 3 });
      t.clock.advance(2 * 3_600_000);
      expect((await useLink(t, second, 'another password')).json()).toMatchObject({ error: 3 });
      expect(
        (await t.services.store.audit.list({ event: 'user.password_link_refused' })).map(
          (entry) => entry.details.reason,
        ),
      ).toEqual(expect.arrayContaining(['used', 'unknown', 'expired']));
      expect(await t.services.store.users.findByUsername(usernameOrThrow(user.username))).toBeDefined();
    },
  );
});
