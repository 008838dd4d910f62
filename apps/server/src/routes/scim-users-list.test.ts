import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { entraUser, GROUP, oktaUser, scimClient, SEARCH, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('SCIM lists and finds users on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'Entra ID: finds a user by userName, and none by a name nobody has',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(entraUser);
      const found = await scim.filter('/Users', `userName eq "${entraUser.userName}"`);
      expect(found).toMatchObject({
        status: 200,
        body: {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
          totalResults: 1,
          startIndex: 1,
          itemsPerPage: 1,
          Resources: [{ id }],
        },
      });
      const none = await scim.filter('/Users', 'userName eq "non-existent user"');
      expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    },
  );

  appTest('Okta: finds a userName in any case, with startIndex and count', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    const page = await scim.call(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "TEST.USER@okta.local"')}&startIndex=1&count=100`,
    );
    expect(page.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
  });

  appTest("lists SCIM's users only, never a local one", async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    await t.createUser();
    const member = await scim.create({ ...entraUser, userName: 'member@testuser.com', externalId: 'm-1' });
    expect(
      ((await scim.call('GET', '/Users')).body.Resources as { id: string }[]).map((user) => user.id),
    ).toEqual([member]);
  });

  appTest('pages through users by startIndex and count', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    for (let index = 0; index < 5; index += 1) {
      await scim.create({ schemas: [USER], userName: `paged-${index}`, externalId: `p-${index}` });
    }
    const second = await scim.call('GET', '/Users?startIndex=3&count=2');
    expect(second.body).toMatchObject({ totalResults: 5, startIndex: 3, itemsPerPage: 2 });
    expect((second.body.Resources as { userName: string }[]).map((user) => user.userName)).toEqual([
      'paged-2',
      'paged-3',
    ]);
    expect((await scim.call('GET', '/Users?count=0')).body).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
      Resources: [],
    });
    expect((await scim.call('GET', '/Users?startIndex=0&count=1')).body).toMatchObject({
      startIndex: 1,
      itemsPerPage: 1,
    });
  });
});

describe.each(DOOR_STORE_KINDS)('SCIM answers only the attributes asked for on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('on a GET, by attributes or excludedAttributes, id always', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    expect((await scim.call('GET', `/Users/${id}?attributes=userName,name.familyName`)).body).toEqual({
      schemas: [USER],
      id,
      userName: 'test.user@okta.local',
      name: { familyName: 'User' },
    });
    const excluded = (await scim.call('GET', `/Users/${id}?excludedAttributes=emails,name.givenName,id`))
      .body;
    expect(excluded.id).toBe(id);
    expect(excluded.emails).toBeUndefined();
    expect(excluded.name).toEqual({ familyName: 'User' });
    expect(excluded.userName).toBe('test.user@okta.local');
  });

  appTest('in a list, by a name with its schema', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    const listed = await scim.call('GET', `/Users?attributes=${encodeURIComponent(`${USER}:userName`)}`);
    expect(listed.body.Resources).toEqual([{ schemas: [USER], id, userName: 'test.user@okta.local' }]);
  });

  appTest('in a POST /Users/.search', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    const searched = await scim.call('POST', '/Users/.search', {
      schemas: [SEARCH],
      attributes: ['displayName'],
      filter: 'userName eq "test.user@okta.local"',
      startIndex: 1,
      count: 10,
    });
    expect(searched).toMatchObject({
      status: 200,
      body: {
        totalResults: 1,
        startIndex: 1,
        Resources: [{ schemas: [USER], id, displayName: 'Test User' }],
      },
    });
    expect(searched.body.Resources[0].userName).toBeUndefined();
  });

  appTest('in a POST /Groups/.search, without members', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    await scim.create({ schemas: [GROUP], displayName: 'Searched', members: [{ value: id }] }, '/Groups');
    const groups = await scim.call('POST', '/Groups/.search', {
      schemas: [SEARCH],
      excludedAttributes: ['members'],
      filter: 'displayName eq "Searched"',
    });
    expect(groups.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: 'Searched' }] });
    expect(groups.body.Resources[0].members).toBeUndefined();
  });
});

describe.each(DOOR_STORE_KINDS)('SCIM describes itself on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('its service provider configuration, resource types and schemas', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    expect((await scim.call('GET', '/ServiceProviderConfig')).body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    expect((await scim.call('GET', '/ResourceTypes')).body).toMatchObject({
      totalResults: 2,
      Resources: [
        { id: 'User', endpoint: '/Users', schema: USER },
        { id: 'Group', endpoint: '/Groups', schema: GROUP },
      ],
    });
    expect((await scim.call('GET', '/ResourceTypes/Group')).body).toMatchObject({ id: 'Group' });
    const userSchema = (await scim.call('GET', `/Schemas/${USER}`)).body;
    expect((userSchema.attributes as { name: string }[]).map((attribute) => attribute.name)).toEqual(
      expect.arrayContaining(['userName', 'active', 'emails', 'phoneNumbers', 'password']),
    );
    expect((await scim.call('GET', '/Schemas')).body.totalResults).toBe(2);
  });

  appTest(
    'publishes the members of a Group with $ref and the canonical types',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const schema = (await scim.call('GET', `/Schemas/${GROUP}`)).body;
      type Attribute = { name: string; subAttributes?: Attribute[] };
      const members = (schema.attributes as Attribute[]).find((attribute) => attribute.name === 'members');
      const sub = (name: string) => members?.subAttributes?.find((attribute) => attribute.name === name);
      expect(sub('$ref')).toMatchObject({ type: 'reference', referenceTypes: ['User', 'Group'] });
      expect(sub('type')).toMatchObject({ canonicalValues: ['User', 'Group'] });
    },
  );
});
