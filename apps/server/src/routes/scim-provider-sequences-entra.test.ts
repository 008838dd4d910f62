import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { GROUP, LIST, PATCH, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { ENTERPRISE, providerOf } from './scim-provider-sequences-fixture.js';

describe.each(DOOR_STORE_KINDS)('the provisioning service of Entra ID on %s', (kind) => {
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
});
