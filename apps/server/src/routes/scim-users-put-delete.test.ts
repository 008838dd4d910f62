import { describe } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import {
  entraUser,
  ERROR,
  oktaUser,
  pageSignIn,
  scimClient,
  sessionOf,
  USER,
} from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('SCIM PUT of a user on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('Okta: replaces the user, its lists as sent', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const created = await scim.call('POST', '/Users', oktaUser);
    const replaced = await scim.call('PUT', `/Users/${created.body.id}`, {
      ...created.body,
      schemas: [USER],
      name: { givenName: 'Test', familyName: 'Person' },
      displayName: 'Test Person',
      phoneNumbers: [{ value: '+1 415 555 0123', type: 'mobile', primary: true }],
      emails: [],
    });
    expect(replaced).toMatchObject({ status: 200, body: { displayName: 'Test Person', emails: [] } });
    expect(replaced.body.phoneNumbers).toEqual([{ value: '+14155550123', type: 'mobile', primary: true }]);
  });

  appTest(
    'Okta sends the password with every update: the same one signs nobody out; a new one does, and signs in',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.call('POST', '/Users', oktaUser);
      const id = created.body.id as string;
      await sessionOf(t, id, 'okta-session');
      await scim.call('PUT', `/Users/${id}`, { ...created.body, schemas: [USER], password: '1mz050nq' });
      expect((await t.services.store.sessions.find('okta-session'))?.endedAt).toBeNull();
      await scim.call('PUT', `/Users/${id}`, {
        ...created.body,
        schemas: [USER],
        password: 'a new password',
      });
      expect((await t.services.store.sessions.find('okta-session'))?.endedAt).toEqual(expect.any(Number));
      expect(await pageSignIn(t, 'test.user@okta.local', '1mz050nq')).toMatchObject({ error: 3 });
      expect(await pageSignIn(t, 'test.user@okta.local', 'a new password')).toMatchObject({ error: 0 });
    },
  );
});

describe.each(DOOR_STORE_KINDS)('SCIM DELETE of a user on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest("removes the user; a read then answers 404 in SCIM's envelope", async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(entraUser);
    expect((await scim.call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect(await t.services.store.users.findById(id)).toBeUndefined();
    expect(await scim.call('GET', `/Users/${id}`)).toMatchObject({
      status: 404,
      body: { schemas: [ERROR], status: '404', detail: `User ${id} not found` },
    });
  });

  appTest('with the SCIM content type and no body answers 204', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(oktaUser);
    const key = (
      await createServiceKey(t.services.store, t.services.keys.serviceKey, 'okta', ['scim'], t.clock.now())
    ).key;
    for (const type of ['application/scim+json', 'application/json']) {
      const response = await fetch(`${scim.base}/Users/${type === 'application/json' ? 'gone' : id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}`, 'content-type': type },
      });
      expect(response.status, type).toBe(type === 'application/json' ? 404 : 204);
    }
    expect(await t.services.store.users.findById(id)).toBeUndefined();
  });
});
