import { describe, type ExpectStatic } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { entraUser, ERROR, GROUP, PATCH, type Scim, scimClient } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/** A group an operator made with `dea` ("Execs", the operator's user in it), and a SCIM user. */
async function operatorsGroup(t: TestApp, scim: Scim, expect: ExpectStatic, name = 'Execs', priority = '50') {
  const member = await scim.create({ ...entraUser, userName: 'exec@testuser.com', externalId: 'e-1' });
  const boss = await t.createUser();
  expect((await t.dea(['group', 'add', '--name', name, '--priority', priority])).code).toBe(0);
  expect((await t.dea(['group', 'add-member', name, boss.username])).code).toBe(0);
  const execs = await t.services.store.groups.findByName(name);
  return { member, boss, execs, id: execs?.id ?? '' };
}

/** A PUT that renames the group "Hacked" with the SCIM user as its member. */
const renameOf = (member: string) => ({
  schemas: [GROUP],
  displayName: 'Hacked',
  members: [{ value: member }],
});

describe.each(DOOR_STORE_KINDS)('SCIM changes only the groups it owns, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "an operator's group is no group to SCIM: not listed, not found by any method, unchanged",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { member, boss, execs, id } = await operatorsGroup(t, scim, expect);
      const patch = { schemas: [PATCH], Operations: [{ op: 'replace', value: { displayName: 'Hacked' } }] };
      const listed = await scim.filter('/Groups', 'displayName eq "Execs"');
      expect(listed.body).toMatchObject({ totalResults: 0, Resources: [] });
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', renameOf(member)],
        ['PATCH', patch],
        ['DELETE', undefined],
      ] as const) {
        const refused = await scim.call(method, `/Groups/${id}`, body);
        expect(refused, method).toMatchObject({
          status: 404,
          body: { schemas: [ERROR], status: '404', detail: `Group ${id} not found` },
        });
      }
      expect(await t.services.store.groups.findByName('Execs')).toEqual(execs);
      expect(await t.services.store.groups.findByName('Hacked')).toBeUndefined();
      expect(await t.services.store.groups.listMembers(id)).toEqual([boss.id]);
      expect(await t.services.store.audit.list({ actor: 'scim:entra', event: 'group.renamed' })).toEqual([]);
    },
  );

  appTest(
    "refuses to create a group by an operator's group's name, naming the command that hands it over",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      await operatorsGroup(t, scim, expect);
      const taken = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Execs' });
      expect(taken).toMatchObject({
        status: 409,
        body: { scimType: 'uniqueness', detail: expect.stringContaining('dea group owner <group> scim') },
      });
    },
  );

  appTest(
    "handed over by an administrator: SCIM lists it, renames it and sets its own users in it; the operator's stay",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { member, boss, id } = await operatorsGroup(t, scim, expect);
      expect((await t.dea(['group', 'owner', 'Execs', 'scim'])).code).toBe(0);
      expect(await t.services.store.audit.list({ event: 'group.owner_set' })).toMatchObject([
        { actor: 'cli', details: { group: 'Execs', from: 'local', owner: 'scim' } },
      ]);
      expect((await scim.call('GET', '/Groups')).body.Resources).toMatchObject([
        { id, displayName: 'Execs' },
      ]);
      expect((await scim.call('PUT', `/Groups/${id}`, renameOf(member))).status).toBe(200);
      expect((await t.services.store.groups.listMembers(id)).sort()).toEqual([boss.id, member].sort());
      expect((await t.services.store.groups.findByName('Hacked'))?.id).toBe(id);
    },
  );

  appTest(
    "taken back: an operator's again, its members kept; no owner but local or scim",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { member, boss, id } = await operatorsGroup(t, scim, expect);
      await t.dea(['group', 'owner', 'Execs', 'scim']);
      await scim.call('PUT', `/Groups/${id}`, renameOf(member));
      expect((await t.dea(['group', 'owner', 'Hacked', 'local'])).code).toBe(0);
      expect((await scim.call('DELETE', `/Groups/${id}`)).status).toBe(404);
      expect((await t.services.store.groups.listMembers(id)).sort()).toEqual([boss.id, member].sort());
      expect((await t.dea(['group', 'owner', 'Hacked', 'root'])).code).toBe(2);
    },
  );
});

describe.each(DOOR_STORE_KINDS)('SCIM DELETE of a group on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('removes a group SCIM created', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const created = await scim.create({ schemas: [GROUP], displayName: 'Made' }, '/Groups');
    expect((await scim.call('DELETE', `/Groups/${created}`)).status).toBe(204);
    expect(await t.services.store.groups.findByName('Made')).toBeUndefined();
    expect((await scim.call('GET', `/Groups/${created}`)).status).toBe(404);
  });

  appTest(
    "releases a group handed to SCIM: the operator's again, its operator's members and policy kept, audited",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { member, boss, execs: staff } = await operatorsGroup(t, scim, expect, 'Staff', '10');
      await t.services.store.groups.setPolicy(staff?.id ?? '', 'Help Desk', { issuers: ['admin'] });
      expect((await t.dea(['group', 'owner', 'Staff', 'scim'])).code).toBe(0);
      await scim.patch(`/Groups/${staff?.id}`, { op: 'add', path: 'members', value: [{ value: member }] });
      expect((await scim.call('DELETE', `/Groups/${staff?.id}`)).status).toBe(204);
      expect(await t.services.store.groups.findByName('Staff')).toMatchObject({ source: 'local' });
      expect(await t.services.store.groups.listMembers(staff?.id ?? '')).toEqual([boss.id]);
      expect(await t.services.store.groups.listPolicies(staff?.id ?? '')).toEqual([
        { category: 'Help Desk', options: { issuers: ['admin'] } },
      ]);
      expect((await scim.call('GET', '/Groups')).body.totalResults).toBe(0);
      expect(
        await t.services.store.audit.list({ event: 'group.owner_set', actor: 'scim:entra' }),
      ).toMatchObject([{ details: { group: 'Staff', from: 'scim', owner: 'local', released: true } }]);
    },
  );
});
