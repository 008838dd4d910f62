import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { entraUser, oktaUser, pageSignIn, scimClient, sessionOf } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('SCIM PATCH of a user on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'Entra ID: replaces an e-mail address and a family name, adds and removes phone numbers by their type',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(entraUser);
      const patched = await scim.patch(
        `/Users/${id}`,
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: 'phoneNumbers[type eq "home"].value', value: '+49 30 5550100' },
        { op: 'Remove', path: 'phoneNumbers[type eq "work"]' },
      );
      expect(patched.status).toBe(200);
      expect(patched.body.emails).toEqual([
        { value: 'updatedEmail@microsoft.com', type: 'work', primary: true },
      ]);
      expect(patched.body.phoneNumbers).toEqual([
        { value: '+14255550100', type: 'mobile', primary: false },
        { value: '+49305550100', type: 'home', primary: false },
      ]);
    },
  );

  appTest('Entra ID: renames a user by its userName', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(entraUser);
    const renamed = await scim.patch(`/Users/${id}`, {
      op: 'Replace',
      path: 'userName',
      value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
    });
    expect(renamed.body.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
    expect(await t.services.store.users.findById(id)).toMatchObject({
      username: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
    });
  });

  appTest(
    'Entra ID: disables a user by active "False", a string, ending their sessions, audited',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(entraUser);
      await sessionOf(t, id, 'entra-session');
      const disabled = await scim.patch(`/Users/${id}`, { op: 'Replace', path: 'active', value: 'False' });
      expect(disabled.body.active).toBe(false);
      expect(await t.services.store.users.findById(id)).toMatchObject({ disabled: true });
      expect((await t.services.store.sessions.find('entra-session'))?.endedAt).toEqual(expect.any(Number));
      expect(await t.services.store.audit.list({ userId: id, event: 'user.disabled' })).toMatchObject([
        { actor: 'scim:entra', details: { source: 'scim', sessionsEnded: 1 } },
      ]);
    },
  );

  appTest('enables a disabled user again', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create({ ...entraUser, active: false });
    const enabled = await scim.patch(`/Users/${id}`, { op: 'replace', path: 'active', value: true });
    expect(enabled.body.active).toBe(true);
  });

  appTest(
    'Okta: deactivates by a replace without a path; the password then signs in no more',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(oktaUser);
      const deactivated = await scim.patch(`/Users/${id}`, { op: 'replace', value: { active: false } });
      expect(deactivated.body.active).toBe(false);
      expect(await pageSignIn(t, 'test.user@okta.local', '1mz050nq')).toMatchObject({ error: 3 });
    },
  );

  appTest(
    'keeps givenName and familyName apart on a PATCH of the name, and moves primary between e-mail addresses',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create({
        ...oktaUser,
        phoneNumbers: [{ value: '+49 30 5550100', type: 'work', primary: true }],
        emails: [
          { value: 'work@example.com', type: 'work' },
          { value: 'home@example.com', type: 'home', primary: true },
        ],
      });
      // A PATCH of the name is applied with displayName set.
      const patched = await scim.patch(
        `/Users/${id}`,
        { op: 'replace', path: 'name.givenName', value: 'Tess' },
        { op: 'replace', path: 'emails[type eq "work"].primary', value: true },
        { op: 'replace', path: 'emails[type eq "home"].primary', value: false },
      );
      expect(patched.body.name).toEqual({ givenName: 'Tess', familyName: 'User' });
      expect(patched.body.displayName).toBe('Test User');
      expect(patched.body.emails).toEqual([
        { value: 'work@example.com', type: 'work', primary: true },
        { value: 'home@example.com', type: 'home', primary: false },
      ]);
      expect(await t.services.store.users.findById(id)).toMatchObject({
        givenName: 'Tess',
        familyName: 'User',
        primaryEmail: 'email',
        primaryPhone: 'telephone',
      });
    },
  );
});

describe.each(DOOR_STORE_KINDS)('SCIM PATCH remove on %s', (kind) => {
  appTest.override('storeKind', kind);

  /** Okta's user, inactive, with a language and a time zone. */
  const inactive = { ...oktaUser, preferredLanguage: 'de', timezone: 'Europe/Berlin', active: false };

  appTest('clears what it names and never enables a user', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(inactive);
    const removed = await scim.patch(
      `/Users/${id}`,
      ...['externalId', 'displayName', 'preferredLanguage', 'timezone', 'active'].map((path) => ({
        op: 'remove',
        path,
      })),
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ name: { givenName: 'Test', familyName: 'User' }, active: false });
    expect(removed.body.externalId).toBeUndefined();
    expect(removed.body.displayName).toBeUndefined();
    expect(removed.body.preferredLanguage).toBeUndefined();
    expect(removed.body.timezone).toBeUndefined();
    expect(await t.services.store.users.findById(id)).toMatchObject({
      disabled: true,
      fullName: 'Test User',
      displayName: null,
      locale: null,
      timeZone: null,
    });
    expect((await scim.filter('/Users', `externalId eq "${oktaUser.externalId}"`)).body.totalResults).toBe(0);
  });

  appTest(
    'without displayName the full name comes from name; without both, it is the user name',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(inactive);
      const unnamed = await scim.patch(
        `/Users/${id}`,
        { op: 'remove', path: 'name' },
        { op: 'remove', path: 'displayName' },
      );
      expect(unnamed.body.displayName).toBeUndefined();
      expect(unnamed.body.name).toBeUndefined();
      expect((await t.services.store.users.findById(id))?.fullName).toBe('test.user@okta.local');
      expect(unnamed.body.active).toBe(false);
    },
  );

  appTest('refuses to remove the userName it requires', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create(inactive);
    const required = await scim.patch(`/Users/${id}`, { op: 'remove', path: 'userName' });
    expect(required).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });
});
