import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { entraUser, GROUP, oktaUser, type Scim, scimClient } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/** Okta's user and Okta's group "Test SCIMv2", made through SCIM. */
async function oktaUserAndGroup(scim: Scim): Promise<{ id: string; groupId: string }> {
  const id = await scim.create(oktaUser);
  const groupId = await scim.create({ schemas: [GROUP], displayName: 'Test SCIMv2', members: [] }, '/Groups');
  return { id, groupId };
}

/**
 * Entra's group "displayName", with a local user of the operator's in it, and a SCIM user who is
 * not a member yet.
 */
async function entraGroup(t: TestApp, scim: Scim) {
  const local = await t.createUser();
  const member = await scim.create({ ...entraUser, userName: 'member@testuser.com', externalId: 'm-1' });
  const groupId = await scim.create(
    {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    },
    '/Groups',
  );
  // An operator's own member of the group is none of SCIM's business.
  const joined = await t.services.store.groups.findByName('displayName');
  await t.services.store.groups.addMember(joined?.id ?? '', local.id);
  return { local, member, groupId, joinedId: joined?.id ?? '' };
}

describe.each(DOOR_STORE_KINDS)('SCIM groups, as Okta sends them, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('creates a group', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const group = await scim.call('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Test SCIMv2',
      members: [],
    });
    expect(group).toMatchObject({
      status: 201,
      body: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] },
    });
  });

  appTest('renames a group by a replace without a path, audited', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { groupId } = await oktaUserAndGroup(scim);
    expect(
      await scim.patch(`/Groups/${groupId}`, {
        op: 'replace',
        value: { id: groupId, displayName: 'Test SCIMv1' },
      }),
    ).toMatchObject({ status: 204 });
    expect(await t.services.store.audit.list({ event: 'group.renamed' })).toMatchObject([
      { actor: 'scim:entra', details: { from: 'Test SCIMv2', group: 'Test SCIMv1' } },
    ]);
  });

  appTest("adds a member by value; the user's groups then name it", async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { id, groupId } = await oktaUserAndGroup(scim);
    expect(
      (
        await scim.patch(`/Groups/${groupId}`, {
          op: 'add',
          path: 'members',
          value: [{ value: id, display: 'test.user@okta.local' }],
        })
      ).status,
    ).toBe(204);
    expect((await t.services.store.groups.listOfUser(id)).map((joined) => joined.name)).toEqual([
      'Test SCIMv2',
    ]);
    expect((await scim.call('GET', `/Users/${id}`)).body.groups).toEqual([
      { value: groupId, $ref: `${scim.base}/Groups/${groupId}`, display: 'Test SCIMv2', type: 'direct' },
    ]);
  });

  appTest('removes a member by a filter on its value', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { id, groupId } = await oktaUserAndGroup(scim);
    await scim.patch(`/Groups/${groupId}`, { op: 'add', path: 'members', value: [{ value: id }] });
    await scim.patch(`/Groups/${groupId}`, { op: 'remove', path: `members[value eq "${id}"]` });
    expect(await t.services.store.groups.listOfUser(id)).toEqual([]);
  });
});

describe.each(DOOR_STORE_KINDS)('SCIM groups, as Entra ID sends them, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('finds a group by displayName without its members', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { groupId } = await entraGroup(t, scim);
    const byName = await scim.call(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`,
    );
    expect(byName.body).toMatchObject({
      totalResults: 1,
      Resources: [{ id: groupId, displayName: 'displayName' }],
    });
    expect(byName.body.Resources[0].members).toBeUndefined();
    expect(
      (await scim.call('GET', `/Groups/${groupId}?excludedAttributes=members`)).body.members,
    ).toBeUndefined();
  });

  appTest(
    "adds and removes a member by value, the operator's own member kept",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { local, member, groupId, joinedId } = await entraGroup(t, scim);
      const add = { op: 'Add', path: 'members', value: [{ $ref: null, value: member }] };
      expect((await scim.patch(`/Groups/${groupId}`, add)).status).toBe(204);
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.members).toEqual([
        { value: member, $ref: `${scim.base}/Users/${member}`, display: 'member@testuser.com', type: 'User' },
      ]);
      const remove = { op: 'Remove', path: 'members', value: [{ $ref: null, value: member }] };
      expect((await scim.patch(`/Groups/${groupId}`, remove)).status).toBe(204);
      expect(await t.services.store.groups.listMembers(joinedId)).toEqual([local.id]);
    },
  );

  appTest('refuses a local user as a member: not a user SCIM may name', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { local, groupId } = await entraGroup(t, scim);
    expect(
      await scim.patch(`/Groups/${groupId}`, { op: 'Add', path: 'members', value: [{ value: local.id }] }),
    ).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue', detail: `no SCIM User ${local.id} to be a member` },
    });
  });
});

describe.each(DOOR_STORE_KINDS)('SCIM groups by the rules of every group on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('refuses a blank name or one over 100 characters, making none', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    for (const displayName of ['   ', 'x'.repeat(101)]) {
      const refused = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName });
      expect(refused, displayName).toMatchObject({
        status: 400,
        body: { scimType: 'invalidValue', detail: 'the name must be 1 to 100 characters' },
      });
    }
    expect(await t.services.store.groups.list()).toEqual([]);
  });

  appTest('trims a name; refuses a rename over 100 characters', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const made = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: ' VPN ' });
    expect(made).toMatchObject({ status: 201, body: { displayName: 'VPN' } });
    const renamed = await scim.call('PUT', `/Groups/${made.body.id}`, {
      schemas: [GROUP],
      displayName: 'y'.repeat(150),
    });
    expect(renamed).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await t.services.store.groups.list()).map((group) => [group.name, group.source])).toEqual([
      ['VPN', 'scim'],
    ]);
  });

  appTest(
    "keeps a group's externalId through a POST and a PUT; a PATCH removes it",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const group = await scim.call('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'G',
        externalId: 'g-1',
      });
      expect(group.body.externalId).toBe('g-1');
      const groupId = group.body.id as string;
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.externalId).toBe('g-1');
      await scim.call('PUT', `/Groups/${groupId}`, { schemas: [GROUP], displayName: 'G', externalId: 'g-2' });
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.externalId).toBe('g-2');
      await scim.patch(`/Groups/${groupId}`, { op: 'remove', path: 'externalId' });
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.externalId).toBeUndefined();
    },
  );
});
