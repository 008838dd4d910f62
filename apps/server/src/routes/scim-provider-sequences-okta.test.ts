import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { GROUP, LIST, PATCH, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { providerOf } from './scim-provider-sequences-fixture.js';

describe.each(DOOR_STORE_KINDS)('the provisioning service of Okta on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('Okta: its documented user requests and Group Push', async ({ startApp, expect }) => {
    const t = await startApp();
    const { base, send } = await providerOf(t, 'okta', 'application/json');

    // Determine whether the user exists: a page of at most 100.
    const query = `filter=${encodeURIComponent('userName eq "test.user@okta.local"')}&startIndex=1&count=100`;
    expect(await send('GET', `/Users?${query}`)).toMatchObject({
      status: 200,
      body: { schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] },
    });

    // Create the user.
    const created = await send('POST', '/Users', {
      schemas: [USER],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      schemas: [USER],
      id,
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      externalId: '00ujl29u0le5T6Aj10h7',
      active: true,
      groups: [],
      meta: { resourceType: 'User', location: `${base}/Users/${id}` },
    });
    // The password is never returned (RFC 7643 section 4.1.1: returned "never").
    expect(created.body.password).toBeUndefined();
    expect(await send('GET', `/Users?${query}`)).toMatchObject({
      body: { totalResults: 1, Resources: [{ id }] },
    });

    // Retrieve the user.
    expect(await send('GET', `/Users/${id}`)).toMatchObject({
      status: 200,
      body: { id, displayName: 'Test User' },
    });

    // Update the user: the whole user, as Okta PUTs it (its own meta and id included).
    const put = await send('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Another User',
      locale: 'en-US',
      groups: [],
      password: '1mz050nq',
      active: true,
      meta: { resourceType: 'User', created: '2010-01-23T04:56:22Z', lastModified: '2011-05-13T04:42:34Z' },
    });
    expect(put).toMatchObject({
      status: 200,
      body: {
        id,
        displayName: 'Another User',
        name: { givenName: 'Another', familyName: 'User' },
        active: true,
      },
    });
    // Okta's PUT leaves out externalId: the one it gave at creation stays.
    expect(put.body.externalId).toBe('00ujl29u0le5T6Aj10h7');

    // Deactivate: a replace without a path, the attribute in the value.
    const deactivated = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated).toMatchObject({ status: 200, body: { id, active: false } });
    expect((await t.services.store.users.findById(id))?.disabled).toBe(true);
    // Reactivate the same way.
    expect(
      (
        await send('PATCH', `/Users/${id}`, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', value: { active: true } }],
        })
      ).body.active,
    ).toBe(true);

    // A new password pushed by a PATCH (hashed before the change's transaction): it signs in; the
    // same one pushed again changes nothing.
    const signIn = async (password: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/login/api/session',
          payload: { username: 'test.user@okta.local', password },
        })
      ).json<{ error: number }>().error;
    const passwordsSet = async () =>
      (await t.services.store.audit.list({ event: 'user.password_set', userId: id })).length;
    const before = await passwordsSet();
    for (let push = 0; push < 2; push += 1)
      expect(
        await send('PATCH', `/Users/${id}`, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', value: { password: 'a pushed password' } }],
        }),
      ).toMatchObject({ status: 200, body: { id } });
    expect(await signIn('a pushed password')).toBe(0);
    expect(await signIn('1mz050nq')).not.toBe(0);
    expect((await passwordsSet()) - before).toBe(1);

    // Group Push: is there a group of that name; create it; read it; rename it; its members.
    const groupQuery = `filter=${encodeURIComponent('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`;
    expect(await send('GET', `/Groups?${groupQuery}`)).toMatchObject({
      status: 200,
      body: { totalResults: 0, Resources: [] },
    });
    const group = await send('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Test SCIMv2',
      members: [],
    });
    expect(group).toMatchObject({
      status: 201,
      body: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] },
    });
    const groupId = group.body.id as string;
    expect(await send('GET', `/Groups/${groupId}`)).toMatchObject({
      status: 200,
      body: { id: groupId, displayName: 'Test SCIMv2', members: [] },
    });
    expect(await send('GET', `/Groups?${groupQuery}`)).toMatchObject({
      body: { totalResults: 1, Resources: [{ id: groupId }] },
    });

    // Update the group's name: a replace without a path, the group's id and name in the value.
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Test SCIMv2 renamed' } }],
      }),
    ).toMatchObject({ status: 204 });
    expect((await t.services.store.groups.findByName('Test SCIMv2 renamed'))?.id).toBe(groupId);

    // Membership: the pushed members replace the group's.
    const other = (
      await send('POST', '/Users', {
        schemas: [USER],
        userName: 'other.user@okta.local',
        externalId: '00uother',
      })
    ).body.id as string;
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [
          {
            op: 'replace',
            path: 'members',
            value: [
              { value: id, display: 'test.user@okta.local' },
              { value: other, display: 'other.user@okta.local' },
            ],
          },
        ],
      }),
    ).toMatchObject({ status: 204 });
    expect((await t.services.store.groups.listMembers(groupId)).sort()).toEqual([id, other].sort());
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'replace', path: 'members', value: [{ value: other, display: 'other.user@okta.local' }] },
        ],
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.groups.listMembers(groupId)).toEqual([other]);
    // A member removed by the value filter, one added, in one request.
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'remove', path: `members[value eq "${other}"]` },
          { op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] },
        ],
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.groups.listMembers(groupId)).toEqual([id]);
    // The user lists the group they are in.
    expect((await send('GET', `/Users/${id}`)).body.groups).toEqual([
      { value: groupId, $ref: `${base}/Groups/${groupId}`, display: 'Test SCIMv2 renamed', type: 'direct' },
    ]);
    // A group's name PUT with its members, as Okta's "update group" sends it.
    const replaced = await send('PUT', `/Groups/${groupId}`, {
      schemas: [GROUP],
      id: groupId,
      displayName: 'Test SCIMv2',
      members: [{ value: other, display: 'other.user@okta.local' }],
    });
    expect(replaced).toMatchObject({
      status: 200,
      body: { id: groupId, displayName: 'Test SCIMv2', members: [{ value: other, type: 'User' }] },
    });

    // Delete the group: gone, its users kept.
    expect(await send('DELETE', `/Groups/${groupId}`)).toMatchObject({ status: 204 });
    expect(await send('GET', `/Groups/${groupId}`)).toMatchObject({ status: 404 });
    expect(await t.services.store.users.findById(other)).toBeDefined();
  });
});
