import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { entraUser, oktaUser, pageSignIn, scimClient, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('SCIM creates users on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "Entra ID: answers 201 in SCIM's content type with the user's location and the user as kept",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.call('POST', '/Users', entraUser);
      expect(created.status).toBe(201);
      expect(created.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
      const id = created.body.id as string;
      expect(created.headers.get('location')).toBe(`${scim.base}/Users/${id}`);
      expect(created.body).toMatchObject({
        schemas: [USER],
        id,
        externalId: entraUser.externalId,
        // userName is not case-exact (RFC 7643 4.1.1): it is kept in its canonical form (RFC 8265).
        userName: entraUser.userName.toLowerCase(),
        // Entra sent no displayName: none is answered (RFC 7643 2.5); name.formatted as sent.
        name: { formatted: 'givenName familyName', givenName: 'givenName', familyName: 'familyName' },
        active: true,
        emails: [
          {
            value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
            type: 'work',
            primary: true,
          },
        ],
        // Entra marks none of them primary (RFC 7643 2.4: at most one is).
        phoneNumbers: [
          { value: '+14255550100', type: 'mobile', primary: false },
          { value: '+14255550199', type: 'work', primary: false },
        ],
        meta: { resourceType: 'User', location: `${scim.base}/Users/${id}` },
      });
      expect(created.body.displayName).toBeUndefined();
    },
  );

  appTest(
    'Entra ID: stores the user as from SCIM, without a password, with its channels, audited',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(entraUser);
      const user = await t.services.store.users.findById(id);
      expect(user).toMatchObject({
        source: 'scim',
        externalId: entraUser.externalId,
        passwordHash: '!',
        fullName: 'givenName familyName',
        displayName: null,
      });
      const channels = await t.services.store.channels.listOfUser(id);
      expect(Object.fromEntries(channels.map((channel) => [channel.key, channel.address]))).toEqual({
        email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
        mobile: '+14255550100',
        telephone: '+14255550199',
      });
      expect(await t.services.store.audit.list({ userId: id, event: 'user.created' })).toMatchObject([
        { actor: 'scim:entra', details: { source: 'scim' } },
      ]);
    },
  );

  appTest('Okta: a password given signs the user in, and is never answered', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const created = await scim.call('POST', '/Users', oktaUser);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userName: 'test.user@okta.local',
      displayName: 'Test User',
      preferredLanguage: 'en-US',
    });
    expect(created.body.password).toBeUndefined();
    expect(await pageSignIn(t, 'test.user@okta.local', '1mz050nq')).toMatchObject({ error: 0 });
  });

  appTest(
    'keeps name.givenName and familyName apart, answering no name.formatted none was sent',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(oktaUser);
      const read = (await scim.call('GET', `/Users/${id}`)).body;
      // No name.formatted was sent: none is answered.
      expect(read.name).toEqual({ givenName: 'Test', familyName: 'User' });
      expect(read.displayName).toBe('Test User');
    },
  );

  appTest(
    'keeps one primary phone number, the first marked, and the e-mail address marked',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create({
        ...oktaUser,
        phoneNumbers: [
          { value: '+49 170 5550100', type: 'mobile' },
          { value: '+49 30 5550100', type: 'work', primary: true },
          { value: '+49 30 5550111', type: 'home', primary: true },
        ],
        emails: [
          { value: 'work@example.com', type: 'work' },
          { value: 'home@example.com', type: 'home', primary: true },
        ],
      });
      const read = (await scim.call('GET', `/Users/${id}`)).body;
      expect((read.phoneNumbers as { primary: boolean }[]).filter((phone) => phone.primary)).toHaveLength(1);
      expect(read.phoneNumbers).toContainEqual({ value: '+49305550100', type: 'work', primary: true });
      expect(read.emails).toEqual([
        { value: 'work@example.com', type: 'work', primary: false },
        { value: 'home@example.com', type: 'home', primary: true },
      ]);
    },
  );
});
