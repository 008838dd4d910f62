import { PASSWORD_LINK_FRAGMENT } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleAgent } from '../../testing/console-agent.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';

const BASE = '/dea/admin-api';

/** The token of a password link, as the login application reads it from the address. */
const tokenOf = (url: string) => new URL(url).hash.slice(1 + PASSWORD_LINK_FRAGMENT.length);

const useLink = (t: TestApp, token: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/login/api/password-link', payload: { token, password } });

const signIn = (t: TestApp, username: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/login/api/session', payload: { username, password } });

describe.each(DOOR_STORE_KINDS)('people in the console on %s', (kind) => {
  // One app for the file: each test makes its own users and console accounts.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { DEA_PASSWORD_LINK_HOURS: '2' });
  });
  afterAll(() => t.close());

  it('an administrator adds, finds, edits and removes a user: each answer in its envelope, a name taken or a time zone that is none 400, a user gone 404', async () => {
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
      result: { users: [{ id, username: 'nina.novak' }] },
    });
    expect((await admin.post('/admin/people', { username: 'nina.novak', fullName: 'N' })).statusCode).toBe(
      400,
    );
    expect(
      (await admin.post(`/admin/people/${id}`, { fullName: 'Nina Nowak', timeZone: null })).json(),
    ).toMatchObject({ error: 0, result: { changed: ['fullName', 'timeZone'] } });
    expect((await admin.post(`/admin/people/${id}`, { timeZone: 'Mars/Olympus' })).statusCode).toBe(400);
    expect((await admin.get(`/admin/people/${id}`)).json()).toMatchObject({
      result: {
        username: 'nina.novak',
        fullName: 'Nina Nowak',
        timeZone: null,
        editable: { fullName: true },
      },
    });
    expect((await admin.post(`/admin/people/${id}/remove`)).json()).toMatchObject({
      result: { changed: ['removal'] },
    });
    expect((await admin.get(`/admin/people/${id}`)).statusCode).toBe(404);
    expect((await admin.post(`/admin/people/${id}/disable`)).statusCode).toBe(404);
  });

  it('ends sessions and changes groups for an administrator; a help-desk agent and a session before its passkey are refused', async () => {
    const admin = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser();
    await t.signIn(user);
    expect((await admin.post(`/admin/people/${user.id}/sessions/end`)).json()).toMatchObject({
      result: { changed: ['sessions'], sessionsEnded: 1 },
    });
    await t.services.store.groups.create({ id: 'g-vpn', name: 'VPN', priority: 5 });
    expect(
      (await admin.post(`/admin/people/${user.id}/groups`, { groupId: 'g-vpn', member: true })).json(),
    ).toMatchObject({ result: { changed: ['groups'] } });

    const agent = await consoleAgent(t, BASE, 'helpdesk');
    expect((await agent.get('/admin/people')).statusCode).toBe(403);
    expect((await agent.post(`/admin/people/${user.id}/disable`)).statusCode).toBe(403);
    const early = await consoleAgent(t, BASE, 'admin', false);
    expect((await early.get('/admin/people')).statusCode).toBe(403);
    expect((await t.services.store.users.findById(user.id))?.disabled).toBe(false);
  });

  it('what SCIM or the directory owns is refused with 409 naming the owner, in the console and by dea user password-link alike', async () => {
    const admin = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser();
    await t.services.store.users.update(user.id, { source: 'scim' });
    const refused = await admin.post(`/admin/people/${user.id}`, { fullName: 'Someone Else' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toMatch(/SCIM/);

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
  });

  it('a password link made in the console sets a new password in the login application, once', async () => {
    const admin = await consoleAgent(t, BASE, 'admin');
    const user = await t.createUser();
    const link = await admin.post(`/admin/people/${user.id}/password-link`);
    const { url, expiresAt } = link.json<{ result: { url: string; expiresAt: string } }>().result;
    expect(url).toMatch(/\/login\/#reset=/);
    expect(Date.parse(expiresAt) - t.clock.now()).toBe(2 * 3_600_000);
    const token = tokenOf(url);

    expect((await useLink(t, token, 'short')).statusCode).toBe(400);
    expect((await useLink(t, token, 'a new password')).json()).toMatchObject({ error: 0 });
    const again = await useLink(t, token, 'another password');
    expect(again.json()).toMatchObject({ error: 3 });
    expect(again.json<{ message: string }>().message).toMatch(/cannot be used/);
    expect((await signIn(t, user.username, user.password)).json()).toMatchObject({ error: 3 });
    expect((await signIn(t, user.username, 'a new password')).json()).toMatchObject({ error: 0 });
  });
});
