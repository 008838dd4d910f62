import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { GROUP, LIST, PATCH, scimClient, USER } from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/**
 * The requests Microsoft Entra ID's and Okta's provisioning services send, in the order they send
 * them, as their published documentation shows them (Entra: "Tutorial: Develop and plan
 * provisioning for a SCIM endpoint", its user and group operations, and "Known issues and
 * resolutions with SCIM 2.0 protocol compliance", the requests made without the aadOptscim062020
 * flag; Okta: "SCIM 2.0 protocol reference" and its Group Push), each answer checked. The ids in
 * their documents are replaced by the ones this server gave.
 */

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** The provider's client: its requests over real HTTP as it sends them (Entra: application/scim+json; Okta: application/json). */
async function providerOf(t: TestApp, name: string, contentType: string) {
  const { base, call } = await scimClient(t, { name, contentType, accept: 'application/scim+json' });
  return { base, send: call };
}

describe.each(STORE_KINDS)('the provisioning services of Entra ID and Okta on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('Microsoft Entra ID: its documented user and group requests', async ({ startApp, expect }) => {
    const t = await startApp();
    const { base, send } = await providerOf(t, 'entra', 'application/scim+json');
    const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1';

    // Before it creates a user, Entra asks whether the matching attribute finds one.
    const before = await send('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(before).toMatchObject({
      status: 200,
      body: { schemas: [LIST], totalResults: 0, Resources: [], startIndex: 1, itemsPerPage: 0 },
    });
    expect(before.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');

    // Create User.
    const created = await send('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      emails: [
        { primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' },
      ],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get('location')).toBe(`${base}/Users/${id}`);
    expect(created.body).toMatchObject({
      schemas: [USER],
      id,
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: userName.toLowerCase(),
      active: true,
      emails: [
        { primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' },
      ],
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      meta: { resourceType: 'User', location: `${base}/Users/${id}` },
    });

    // Get User; Get User by query (userName, and externalId when that is the matching attribute);
    // Get User by query, zero results.
    expect(await send('GET', `/Users/${id}`)).toMatchObject({
      status: 200,
      body: { id, userName: userName.toLowerCase() },
    });
    const found = await send('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found).toMatchObject({
      status: 200,
      body: { schemas: [LIST], totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [{ id }] },
    });
    expect(
      await send(
        'GET',
        `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`,
      ),
    ).toMatchObject({ body: { totalResults: 1, Resources: [{ id }] } });
    expect(
      await send('GET', `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`),
    ).toMatchObject({ status: 200, body: { totalResults: 0, Resources: [] } });

    // Update User [multi-valued properties]: a value filter in the path, "Replace" capitalised.
    const multi = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    expect(multi).toMatchObject({
      status: 200,
      body: {
        id,
        emails: [{ primary: true, type: 'work', value: 'updatedEmail@microsoft.com' }],
        name: { familyName: 'updatedFamilyName', givenName: 'givenName' },
      },
    });
    // An "Add" of an e-mail the user has, as Entra sends a changed address.
    const added = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'added@microsoft.com' }],
    });
    expect(added.body.emails).toEqual([{ primary: true, type: 'work', value: 'added@microsoft.com' }]);

    // Update User [single-valued properties]: the user name.
    const renamed = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' },
      ],
    });
    expect(renamed).toMatchObject({
      status: 200,
      body: { id, userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' },
    });

    // Requests to replace multiple attributes, as sent without aadOptscim062020 (one operation each).
    const several = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Pvlo' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@test.microsoft.com' },
        { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
        { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
        { op: 'Replace', path: 'externalId', value: 'Eqpj' },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
      ],
    });
    expect(several).toMatchObject({
      status: 200,
      body: {
        displayName: 'Pvlo',
        externalId: 'Eqpj',
        name: { givenName: 'Gtfd', familyName: 'Pkqf' },
        emails: [{ type: 'work', value: 'TestBcwqnm@test.microsoft.com' }],
      },
    });
    // The same with aadOptscim062020: one "replace" without a path, the paths as the value's keys.
    const flagged = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        {
          op: 'replace',
          value: {
            displayName: 'Pvlo 2',
            'emails[type eq "work"].value': 'flagged@test.microsoft.com',
            'name.givenName': 'Gtfd2',
            'name.familyName': 'Pkqf2',
            externalId: 'Eqpj2',
          },
        },
      ],
    });
    expect(flagged).toMatchObject({
      status: 200,
      body: {
        displayName: 'Pvlo 2',
        externalId: 'Eqpj2',
        name: { givenName: 'Gtfd2', familyName: 'Pkqf2' },
        emails: [{ type: 'work', value: 'flagged@test.microsoft.com' }],
      },
    });

    // Disable User: "active" as the string "False" (without the flag), then as false.
    const disabled = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(disabled).toMatchObject({ status: 200, body: { id, active: false } });
    expect((await t.services.store.users.findById(id))?.disabled).toBe(true);
    const enabled = await send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(enabled.body.active).toBe(true);
    const disabledAgain = await send('PATCH', `/Users/${id}`, {
      Operations: [{ op: 'replace', path: 'active', value: false }],
      schemas: [PATCH],
    });
    expect(disabledAgain).toMatchObject({ status: 200, body: { active: false } });

    // Groups. Create Group (with Entra's own schema named beside the core one).
    const group = await send('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    });
    expect(group.status).toBe(201);
    const groupId = group.body.id as string;
    expect(group.body).toMatchObject({
      schemas: [GROUP],
      id: groupId,
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      members: [],
      meta: { resourceType: 'Group', location: `${base}/Groups/${groupId}` },
    });
    expect(group.headers.get('location')).toBe(`${base}/Groups/${groupId}`);

    // Get Group; Get Group by displayName: both without members.
    const read = await send('GET', `/Groups/${groupId}?excludedAttributes=members`);
    expect(read).toMatchObject({ status: 200, body: { id: groupId, displayName: 'displayName' } });
    expect(read.body.members).toBeUndefined();
    const byName = await send(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`,
    );
    expect(byName).toMatchObject({
      status: 200,
      body: { totalResults: 1, Resources: [{ id: groupId, displayName: 'displayName' }] },
    });
    expect(byName.body.Resources[0].members).toBeUndefined();
    expect(
      await send(
        'GET',
        `/Groups?filter=${encodeURIComponent('externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"')}`,
      ),
    ).toMatchObject({ body: { totalResults: 1, Resources: [{ id: groupId }] } });

    // Update Group [non-member attributes]: 204.
    const newName = '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName';
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'displayName', value: newName }],
      }),
    ).toMatchObject({ status: 204, body: undefined });
    expect((await t.services.store.groups.findByName(newName))?.id).toBe(groupId);

    // Update Group [add members], "$ref": null as Entra sends it: 204.
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }] }],
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.groups.listMembers(groupId)).toEqual([id]);
    expect((await send('GET', `/Groups/${groupId}`)).body.members).toEqual([
      {
        value: id,
        $ref: `${base}/Users/${id}`,
        display: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
        type: 'User',
      },
    ]);

    // Update Group [remove members]: without the flag, the member in the value...
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }],
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.groups.listMembers(groupId)).toEqual([]);
    // ...and with it, the member in the path's value filter.
    await send('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }],
    });
    expect(
      await send('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.groups.listMembers(groupId)).toEqual([]);

    // Delete Group; Delete User: 204, then gone.
    expect(await send('DELETE', `/Groups/${groupId}`)).toMatchObject({ status: 204, body: undefined });
    expect((await send('GET', `/Groups/${groupId}`)).status).toBe(404);
    expect(await send('DELETE', `/Users/${id}`)).toMatchObject({ status: 204, body: undefined });
    expect(await send('GET', `/Users/${id}`)).toMatchObject({ status: 404, body: { status: '404' } });
  });

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
