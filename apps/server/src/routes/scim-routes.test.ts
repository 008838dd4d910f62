import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageFileName, PAGE_CALLS, pageCallKey, usernameOrThrow } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { API } from '../testing/api-bodies.js';
import { consoleAgent } from '../testing/console-agent.js';
import { appTest } from '../testing/fixtures.js';
import { startTwoInstances } from '../testing/instances.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The page's HTML as built, where the server puts its startup answers. */
const PAGE_TEMPLATE = `<!doctype html>
<html lang="en">
  <head><script type="module" src="/dea/assets/dea.js"></script></head>
  <body>
    <div id="root"><!--first-paint--><!--/first-paint--></div>
  </body>
</html>
`;

/** A SCIM answer: JSON read field by field in the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Scim {
  base: string;
  /** A SCIM call over real HTTP with the service key, as the identity provider makes it. */
  call(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<{ status: number; body: Json; headers: Headers }>;
}

/** The app listening on a real port, and a service key with the scope scim. */
async function scimClient(t: TestApp, scopes: string[] = ['scim']): Promise<Scim> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/scim/v2`;
  const { key } = await createServiceKey(
    t.services.store,
    t.services.keys.serviceKey,
    'entra',
    scopes,
    t.clock.now(),
  );
  return {
    base,
    async call(method, path, body, presented = key) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(presented !== null && { authorization: `Bearer ${presented}` }),
          ...(body !== undefined && { 'content-type': 'application/scim+json' }),
        },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === '' ? undefined : JSON.parse(text),
        headers: response.headers,
      };
    },
  };
}

// Microsoft Entra ID's requests, as its SCIM provisioning documentation shows them.
const entraUser = {
  schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
  userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
  active: true,
  emails: [
    { primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' },
  ],
  phoneNumbers: [
    { type: 'mobile', value: '+1 425 555 0100' },
    { type: 'work', value: '+1 425 555 0199' },
    { type: 'fax', value: '+1 425 555 0111' },
  ],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Sales' },
};

// Okta's requests, as its SCIM 2.0 documentation shows them.
const oktaUser = {
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
};

describe.each(STORE_KINDS)('SCIM 2.0 on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'Entra ID: create, find by userName, PATCH its forms, disable, delete',
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
      const user = await t.services.store.users.findById(id);
      expect(user).toMatchObject({
        source: 'scim',
        externalId: entraUser.externalId,
        passwordHash: '!',
        fullName: 'givenName familyName',
        displayName: null,
      });
      expect(created.body.displayName).toBeUndefined();
      const channels = await t.services.store.channels.listOfUser(id);
      expect(Object.fromEntries(channels.map((channel) => [channel.key, channel.address]))).toEqual({
        email: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
        mobile: '+14255550100',
        telephone: '+14255550199',
      });
      expect(await t.services.store.audit.list({ userId: id, event: 'user.created' })).toMatchObject([
        { actor: 'scim:entra', details: { source: 'scim' } },
      ]);

      const found = await scim.call(
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${entraUser.userName}"`)}`,
      );
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
      const none = await scim.call(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "non-existent user"')}`,
      );
      expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });

      const patched = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
          { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
          { op: 'Add', path: 'phoneNumbers[type eq "home"].value', value: '+49 30 5550100' },
          { op: 'Remove', path: 'phoneNumbers[type eq "work"]' },
        ],
      });
      expect(patched.status).toBe(200);
      expect(patched.body.emails).toEqual([
        { value: 'updatedEmail@microsoft.com', type: 'work', primary: true },
      ]);
      expect(patched.body.phoneNumbers).toEqual([
        { value: '+14255550100', type: 'mobile', primary: false },
        { value: '+49305550100', type: 'home', primary: false },
      ]);
      const renamed = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' },
        ],
      });
      expect(renamed.body.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
      expect(await t.services.store.users.findById(id)).toMatchObject({
        username: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
      });

      // Disabling ends the user's sessions; Entra has also sent the value as the string "False".
      await t.services.store.sessions.create({
        idHash: 'entra-session',
        userId: id,
        createdAt: t.clock.now(),
        lastSeenAt: t.clock.now(),
      });
      const disabled = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      });
      expect(disabled.body.active).toBe(false);
      expect(await t.services.store.users.findById(id)).toMatchObject({ disabled: true });
      expect((await t.services.store.sessions.find('entra-session'))?.endedAt).toEqual(expect.any(Number));
      expect(await t.services.store.audit.list({ userId: id, event: 'user.disabled' })).toMatchObject([
        { actor: 'scim:entra', details: { source: 'scim', sessionsEnded: 1 } },
      ]);
      const enabled = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: true }],
      });
      expect(enabled.body.active).toBe(true);

      expect((await scim.call('DELETE', `/Users/${id}`)).status).toBe(204);
      expect(await t.services.store.users.findById(id)).toBeUndefined();
      expect(await scim.call('GET', `/Users/${id}`)).toMatchObject({
        status: 404,
        body: { schemas: [ERROR], status: '404', detail: `User ${id} not found` },
      });
    },
  );

  appTest(
    'Okta: create with a password that signs in, PUT, deactivate without a path, groups',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t, ['scim']);
      const created = await scim.call('POST', '/Users', oktaUser);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        userName: 'test.user@okta.local',
        displayName: 'Test User',
        preferredLanguage: 'en-US',
      });
      expect(created.body.password).toBeUndefined();
      const id = created.body.id as string;
      const signIn = (password: string) =>
        t.app.inject({
          method: 'POST',
          url: '/login/api/session',
          payload: { username: 'test.user@okta.local', password },
        });
      expect((await signIn('1mz050nq')).json()).toMatchObject({ error: 0 });

      const page = await scim.call(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "TEST.USER@okta.local"')}&startIndex=1&count=100`,
      );
      expect(page.body).toMatchObject({ totalResults: 1, Resources: [{ id }] });

      const replaced = await scim.call('PUT', `/Users/${id}`, {
        ...created.body,
        schemas: [USER],
        name: { givenName: 'Test', familyName: 'Person' },
        displayName: 'Test Person',
        phoneNumbers: [{ value: '+1 415 555 0123', type: 'mobile', primary: true }],
        emails: [],
      });
      expect(replaced).toMatchObject({ status: 200, body: { displayName: 'Test Person', emails: [] } });
      expect(replaced.body.phoneNumbers).toEqual([{ value: '+14155550123', type: 'mobile', primary: true }]);

      // Okta sends the password with every update: the same one signs nobody out; a new one does.
      const session = {
        idHash: 'okta-session',
        userId: id,
        createdAt: t.clock.now(),
        lastSeenAt: t.clock.now(),
      };
      await t.services.store.sessions.create(session);
      await scim.call('PUT', `/Users/${id}`, { ...replaced.body, schemas: [USER], password: '1mz050nq' });
      expect((await t.services.store.sessions.find('okta-session'))?.endedAt).toBeNull();
      await scim.call('PUT', `/Users/${id}`, {
        ...replaced.body,
        schemas: [USER],
        password: 'a new password',
      });
      expect((await t.services.store.sessions.find('okta-session'))?.endedAt).toEqual(expect.any(Number));
      expect((await signIn('1mz050nq')).json()).toMatchObject({ error: 3 });
      expect((await signIn('a new password')).json()).toMatchObject({ error: 0 });

      const deactivated = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      expect(deactivated.body.active).toBe(false);
      expect((await signIn('1mz050nq')).json()).toMatchObject({ error: 3 });

      // Groups: create, rename by a replace without a path, add and remove members by value filter.
      const group = await scim.call('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'Test SCIMv2',
        members: [],
      });
      expect(group).toMatchObject({
        status: 201,
        body: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] },
      });
      const groupId = group.body.id as string;
      expect(
        await scim.call('PATCH', `/Groups/${groupId}`, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Test SCIMv1' } }],
        }),
      ).toMatchObject({ status: 204 });
      expect(
        (
          await scim.call('PATCH', `/Groups/${groupId}`, {
            schemas: [PATCH],
            Operations: [
              { op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] },
            ],
          })
        ).status,
      ).toBe(204);
      expect((await t.services.store.groups.listOfUser(id)).map((joined) => joined.name)).toEqual([
        'Test SCIMv1',
      ]);
      expect((await scim.call('GET', `/Users/${id}`)).body.groups).toEqual([
        { value: groupId, $ref: `${scim.base}/Groups/${groupId}`, display: 'Test SCIMv1', type: 'direct' },
      ]);
      await scim.call('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
      });
      expect(await t.services.store.groups.listOfUser(id)).toEqual([]);
      expect(await t.services.store.audit.list({ event: 'group.renamed' })).toMatchObject([
        { actor: 'scim:entra', details: { from: 'Test SCIMv2', group: 'Test SCIMv1' } },
      ]);
    },
  );

  appTest(
    'Entra ID groups: find by displayName without members, add and remove members by value',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const local = await t.createUser();
      const member = (
        await scim.call('POST', '/Users', {
          ...entraUser,
          userName: 'member@testuser.com',
          externalId: 'm-1',
        })
      ).body.id as string;
      const group = await scim.call('POST', '/Groups', {
        schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayName: 'displayName',
        meta: { resourceType: 'Group' },
      });
      const groupId = group.body.id as string;
      // An operator's own member of the group is none of SCIM's business.
      const joined = await t.services.store.groups.findByName('displayName');
      await t.services.store.groups.addMember(joined?.id ?? '', local.id);

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

      const add = {
        schemas: [PATCH],
        Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: member }] }],
      };
      expect((await scim.call('PATCH', `/Groups/${groupId}`, add)).status).toBe(204);
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.members).toEqual([
        { value: member, $ref: `${scim.base}/Users/${member}`, display: 'member@testuser.com', type: 'User' },
      ]);
      const remove = {
        schemas: [PATCH],
        Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: member }] }],
      };
      expect((await scim.call('PATCH', `/Groups/${groupId}`, remove)).status).toBe(204);
      expect(await t.services.store.groups.listMembers(joined?.id ?? '')).toEqual([local.id]);

      // Local users are not SCIM's: neither listed nor a member it may name.
      expect(
        ((await scim.call('GET', '/Users')).body.Resources as { id: string }[]).map((user) => user.id),
      ).toEqual([member]);
      expect(
        await scim.call('PATCH', `/Groups/${groupId}`, {
          schemas: [PATCH],
          Operations: [{ op: 'Add', path: 'members', value: [{ value: local.id }] }],
        }),
      ).toMatchObject({
        status: 400,
        body: { scimType: 'invalidValue', detail: `no SCIM User ${local.id} to be a member` },
      });
    },
  );

  appTest(
    "changes only the groups it owns: an operator's group is no group to SCIM until an administrator hands it over",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const member = (
        await scim.call('POST', '/Users', { ...entraUser, userName: 'exec@testuser.com', externalId: 'e-1' })
      ).body.id as string;
      const boss = await t.createUser();
      expect((await t.dea(['group', 'add', '--name', 'Execs', '--priority', '50'])).code).toBe(0);
      expect((await t.dea(['group', 'add-member', 'Execs', boss.username])).code).toBe(0);
      const execs = await t.services.store.groups.findByName('Execs');
      const id = execs?.id ?? '';
      const rename = {
        schemas: [GROUP],
        displayName: 'Hacked',
        members: [{ value: member }],
      };
      const patch = {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { displayName: 'Hacked' } }],
      };

      const listed = await scim.call('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Execs"')}`);
      expect(listed.body).toMatchObject({ totalResults: 0, Resources: [] });
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', rename],
        ['PATCH', patch],
        ['DELETE', undefined],
      ] as const) {
        const refused = await scim.call(method, `/Groups/${id}`, body);
        expect(refused, method).toMatchObject({
          status: 404,
          body: { schemas: [ERROR], status: '404', detail: `Group ${id} not found` },
        });
      }
      const taken = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Execs' });
      expect(taken).toMatchObject({
        status: 409,
        body: { scimType: 'uniqueness', detail: expect.stringContaining('dea group owner <group> scim') },
      });
      expect(await t.services.store.groups.findByName('Execs')).toEqual(execs);
      expect(await t.services.store.groups.findByName('Hacked')).toBeUndefined();
      expect(await t.services.store.groups.listMembers(id)).toEqual([boss.id]);
      expect(await t.services.store.audit.list({ actor: 'scim:entra', event: 'group.renamed' })).toEqual([]);

      // Handed over: SCIM lists it, renames it and sets its own users in it; the operator's stay.
      expect((await t.dea(['group', 'owner', 'Execs', 'scim'])).code).toBe(0);
      expect(await t.services.store.audit.list({ event: 'group.owner_set' })).toMatchObject([
        { actor: 'cli', details: { group: 'Execs', from: 'local', owner: 'scim' } },
      ]);
      expect((await scim.call('GET', '/Groups')).body.Resources).toMatchObject([
        { id, displayName: 'Execs' },
      ]);
      expect((await scim.call('PUT', `/Groups/${id}`, rename)).status).toBe(200);
      expect((await t.services.store.groups.listMembers(id)).sort()).toEqual([boss.id, member].sort());
      expect((await t.services.store.groups.findByName('Hacked'))?.id).toBe(id);
      // And taken back: an operator's again.
      expect((await t.dea(['group', 'owner', 'Hacked', 'local'])).code).toBe(0);
      expect((await scim.call('DELETE', `/Groups/${id}`)).status).toBe(404);
      expect((await t.services.store.groups.listMembers(id)).sort()).toEqual([boss.id, member].sort());
      expect((await t.dea(['group', 'owner', 'Hacked', 'root'])).code).toBe(2);
    },
  );

  appTest('creates and renames groups by the rules of every group', async ({ startApp, expect }) => {
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

  appTest('refuses in SCIM error format and changes nothing', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const taken = await t.createUser();
    const before = await t.services.store.users.count();
    const cases: [string, string, unknown, number, string | undefined, string][] = [
      [
        'POST',
        '/Users',
        { ...oktaUser, userName: taken.username },
        409,
        'uniqueness',
        `the userName ${taken.username} is taken`,
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, phoneNumbers: [{ type: 'mobile', value: '555-0100' }] },
        400,
        'invalidValue',
        'mobile needs an international phone number',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, emails: [{ type: 'work', value: 'not an address' }] },
        400,
        'invalidValue',
        'email needs an e-mail address',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, userName: 'two words' },
        400,
        'invalidValue',
        'may not contain a space',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, locale: 'English' },
        400,
        'invalidValue',
        'preferredLanguage "English" is not a language code',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, password: 'short' },
        400,
        'invalidValue',
        'the password must have 8 to 1024 characters',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, active: 'yes' },
        400,
        'invalidValue',
        'the User is not valid: /active',
      ],
      [
        'POST',
        '/Users',
        { ...oktaUser, schemas: [GROUP] },
        400,
        'invalidValue',
        `a User names the schema ${USER}`,
      ],
      ['POST', '/Users', '{"userName": ', 400, 'invalidSyntax', 'the body is not valid JSON'],
      [
        'GET',
        `/Users?filter=${encodeURIComponent('userName zz "a"')}`,
        undefined,
        400,
        'invalidFilter',
        'an operator (eq ne co sw ew gt ge lt le pr) is missing',
      ],
      [
        'GET',
        `/Users?filter=${encodeURIComponent('emails.value eq "a@b.c"')}`,
        undefined,
        400,
        'invalidFilter',
        'emails.value is no attribute a filter may name here (offered: id, username, externalid',
      ],
      ['GET', '/Users/00000000-0000-7000-8000-000000000000', undefined, 404, undefined, 'not found'],
      ['GET', `/Users/${taken.id}`, undefined, 404, undefined, 'not found'],
      [
        'PATCH',
        `/Users/${taken.id}`,
        { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] },
        400,
        'mutability',
        `${taken.username}'s user name comes from the administrators`,
      ],
      ['GET', '/Nothing', undefined, 404, undefined, 'no such endpoint'],
    ];
    for (const [method, path, body, status, scimType, detail] of cases) {
      const answer = await scim.call(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(status);
      expect(answer.body, `${method} ${path}`).toMatchObject({
        schemas: [ERROR],
        status: String(status),
        detail: expect.stringContaining(detail),
      });
      expect(answer.body.scimType, `${method} ${path}`).toBe(scimType);
    }
    expect(await t.services.store.users.count()).toBe(before);
    expect(await t.services.store.users.findByUsername(usernameOrThrow(taken.username))).toMatchObject({
      source: 'local',
      disabled: false,
    });

    const created = (await scim.call('POST', '/Users', oktaUser)).body.id as string;
    const badPatch = await scim.call('PATCH', `/Users/${created}`, {
      schemas: [PATCH],
      Operations: [{ op: 'move', path: 'active', value: false }],
    });
    expect(badPatch).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    const badPath = await scim.call('PATCH', `/Users/${created}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'emails[type eq "work"', value: 'x@example.com' }],
    });
    expect(badPath).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    expect(await t.services.store.users.findById(created)).toMatchObject({ disabled: false });
    // The password rule of every door (the contract's), the upper bound too, in a PATCH's value.
    const stored = await t.services.store.users.findById(created);
    for (const password of ['x'.repeat(1025), 'seven77']) {
      const badPassword = await scim.call('PATCH', `/Users/${created}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { password } }],
      });
      expect(badPassword).toMatchObject({
        status: 400,
        body: { scimType: 'invalidValue', detail: 'the password must have 8 to 1024 characters' },
      });
    }
    expect((await t.services.store.users.findById(created))?.passwordHash).toBe(stored?.passwordHash);

    for (const key of [null, 'dea_nope.nope']) {
      const refused = await scim.call('GET', '/Users', undefined, key);
      expect(refused).toMatchObject({ status: 401, body: { schemas: [ERROR], status: '401' } });
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="scim"');
    }
    const verifyOnly = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'vpn',
      ['verify'],
      t.clock.now(),
    );
    expect((await scim.call('GET', '/ServiceProviderConfig', undefined, verifyOnly.key)).status).toBe(401);
  });

  appTest(
    "cannot rename or remove a directory user: the identity module's ownership rule, answered 400 mutability naming the directory",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const store = t.services.store;
      const id = newId();
      await store.users.create({
        id,
        username: usernameOrThrow('dora'),
        passwordHash: '!',
        fullName: 'Dora Directory',
        locale: 'en',
        createdAt: Date.now(),
        source: 'ldap',
        externalId: 'entry-uuid-dora',
      });
      const before = await store.users.findById(id);
      for (const [method, body] of [
        ['PUT', { ...oktaUser, userName: 'dora.renamed', externalId: 'entry-uuid-dora' }],
        ['PATCH', { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: 'dora2' }] }],
        ['DELETE', undefined],
      ] as const) {
        const answer = await scim.call(method, `/Users/${id}`, body);
        expect(answer, method).toMatchObject({
          status: 400,
          body: {
            scimType: 'mutability',
            detail: expect.stringContaining('comes from the directory (DEA_LDAP_URL); change it there'),
          },
        });
      }
      expect(await store.users.findById(id)).toEqual(before);
      expect(await store.audit.list({ userId: id })).toEqual([]);
    },
  );

  appTest('describes itself, and pages through users', async ({ startApp, expect }) => {
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

    for (let index = 0; index < 5; index += 1) {
      await scim.call('POST', '/Users', {
        schemas: [USER],
        userName: `paged-${index}`,
        externalId: `p-${index}`,
      });
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

  appTest(
    'creates a user exactly once when the same create arrives ten times at once',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          scim.call('POST', '/Users', {
            ...entraUser,
            externalId: `burst-${index % 2}`,
            userName: 'burst@testuser.com',
          }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([
        201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
      ]);
      for (const answer of answers.filter((each) => each.status === 409))
        expect(answer.body.scimType).toBe('uniqueness');
      expect((await t.services.store.users.listOfSource('scim')).map((user) => user.username)).toEqual([
        'burst@testuser.com',
      ]);
      expect(await t.services.store.audit.list({ event: 'user.created' })).toHaveLength(1);
    },
  );
});

describe('SCIM on two instances of one PostgreSQL store', () => {
  it('creates a user once and adds a member once when both instances take the same calls at once', async () => {
    const instances = await startTwoInstances();
    const { a, b } = instances;
    try {
      const { key } = await createServiceKey(
        a.services.store,
        a.services.keys.serviceKey,
        'okta',
        ['scim'],
        Date.now(),
      );
      const call = (base: string, method: string, path: string, body: unknown) =>
        fetch(`${base}/scim/v2${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
          body: JSON.stringify(body),
        });
      const creates = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          call(index % 2 === 0 ? a.base : b.base, 'POST', '/Users', { ...oktaUser, password: undefined }),
        ),
      );
      expect(creates.map((response) => response.status).sort()).toEqual([
        201,
        ...Array<number>(11).fill(409),
      ]);
      const [user] = await a.services.store.users.listOfSource('scim');
      expect(await a.services.store.audit.list({ event: 'user.created' })).toHaveLength(1);

      const group = (await (
        await call(a.base, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Okta VPN' })
      ).json()) as {
        id: string;
      };
      const adds = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          call(index % 2 === 0 ? a.base : b.base, 'PATCH', `/Groups/${group.id}`, {
            schemas: [PATCH],
            Operations: [{ op: 'add', path: 'members', value: [{ value: user?.id }] }],
          }),
        ),
      );
      expect(adds.map((response) => response.status)).toEqual(Array<number>(8).fill(204));
      expect(await a.services.store.groups.listMembers(group.id)).toEqual([user?.id]);
      expect(await a.services.store.audit.list({ event: 'group.member_added' })).toHaveLength(1);
    } finally {
      await instances.close();
    }
  });
});

describe.each(STORE_KINDS)('SCIM as RFC 7643 and RFC 7644 say, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('DELETE with the SCIM content type and no body answers 204', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = (await scim.call('POST', '/Users', oktaUser)).body.id as string;
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

  appTest(
    'DELETE of a group SCIM created removes it; of one handed to SCIM releases it, its policy kept',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = (await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Made' })).body
        .id as string;
      expect((await scim.call('DELETE', `/Groups/${created}`)).status).toBe(204);
      expect(await t.services.store.groups.findByName('Made')).toBeUndefined();
      expect((await scim.call('GET', `/Groups/${created}`)).status).toBe(404);

      const boss = await t.createUser();
      expect((await t.dea(['group', 'add', '--name', 'Staff', '--priority', '10'])).code).toBe(0);
      expect((await t.dea(['group', 'add-member', 'Staff', boss.username])).code).toBe(0);
      const staff = await t.services.store.groups.findByName('Staff');
      await t.services.store.groups.setPolicy(staff?.id ?? '', 'Help Desk', { issuers: ['admin'] });
      expect((await t.dea(['group', 'owner', 'Staff', 'scim'])).code).toBe(0);
      const member = (await scim.call('POST', '/Users', oktaUser)).body.id as string;
      await scim.call('PATCH', `/Groups/${staff?.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'members', value: [{ value: member }] }],
      });
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

  appTest('PATCH remove clears what it names and never enables a user', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = (
      await scim.call('POST', '/Users', {
        ...oktaUser,
        preferredLanguage: 'de',
        timezone: 'Europe/Berlin',
        active: false,
      })
    ).body.id as string;
    const removed = await scim.call('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: ['externalId', 'displayName', 'preferredLanguage', 'timezone', 'active'].map((path) => ({
        op: 'remove',
        path,
      })),
    });
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
    expect(
      (
        await scim.call(
          'GET',
          `/Users?filter=${encodeURIComponent(`externalId eq "${oktaUser.externalId}"`)}`,
        )
      ).body.totalResults,
    ).toBe(0);
    // Without displayName the full name comes from name; without both, it is the user name.
    const unnamed = await scim.call('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'remove', path: 'name' },
        { op: 'remove', path: 'displayName' },
      ],
    });
    expect(unnamed.body.displayName).toBeUndefined();
    expect(unnamed.body.name).toBeUndefined();
    expect((await t.services.store.users.findById(id))?.fullName).toBe('test.user@okta.local');
    expect(unnamed.body.active).toBe(false);
    const required = await scim.call('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: 'userName' }],
    });
    expect(required).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
  });

  appTest(
    'name.formatted is kept as given; a PATCH remove leaves displayName and preferredLanguage unassigned, the page and the console falling back as for a user created without them',
    async ({ startApp, expect, onTestFinished }) => {
      const webDir = mkdtempSync(join(tmpdir(), 'dea-web-'));
      onTestFinished(() => rmSync(webDir, { recursive: true, force: true }));
      mkdirSync(join(webDir, 'dea'));
      writeFileSync(join(webDir, 'dea', 'index.html'), PAGE_TEMPLATE);
      const t = await startApp({ DEA_WEB_DIR: webDir });
      const scim = await scimClient(t);
      const formatted = 'Dr. Ada M. Lovelace, PhD';
      const password = 'Analytical1843';
      const created = await scim.call('POST', '/Users', {
        schemas: [USER],
        userName: 'ada@example.org',
        displayName: 'Ada L.',
        name: { formatted, givenName: 'Ada', familyName: 'Lovelace' },
        preferredLanguage: 'de',
        password,
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(created.body).toMatchObject({
        displayName: 'Ada L.',
        name: { formatted, givenName: 'Ada', familyName: 'Lovelace' },
        preferredLanguage: 'de',
      });
      const filtered = async (filter: string) =>
        (await scim.call('GET', `/Users?filter=${encodeURIComponent(filter)}`)).body.totalResults as number;
      expect(await filtered(`name.formatted eq "${formatted}"`)).toBe(1);
      // A part of the name changes; name.formatted stays as the client gave it.
      const renamed = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'name.givenName', value: 'Augusta' }],
      });
      expect(renamed.body.name).toEqual({ formatted, givenName: 'Augusta', familyName: 'Lovelace' });

      const removed = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'remove', path: 'displayName' },
          { op: 'remove', path: 'preferredLanguage' },
        ],
      });
      expect(removed.status).toBe(200);
      for (const answer of [removed.body, (await scim.call('GET', `/Users/${id}`)).body]) {
        expect(answer.displayName).toBeUndefined();
        expect(answer.preferredLanguage).toBeUndefined();
        expect(answer.name).toEqual({ formatted, givenName: 'Augusta', familyName: 'Lovelace' });
      }
      expect(await filtered('displayName pr')).toBe(0);
      expect(await filtered('preferredLanguage pr')).toBe(0);
      expect(await filtered(`name.formatted eq "${formatted}"`)).toBe(1);
      expect(
        await t.services.store.audit.list({ userId: id, event: 'user.updated', limit: 10 }),
      ).toMatchObject([
        { actor: 'scim:entra', details: { fields: ['fullName', 'locale', 'displayName'] } },
        { actor: 'scim:entra', details: { fields: ['givenName'] } },
      ]);

      // As a user created without them: the full name is made of the name, there is no language.
      const without = await scim.call('POST', '/Users', {
        schemas: [USER],
        userName: 'augusta@example.org',
        name: { formatted, givenName: 'Augusta', familyName: 'Lovelace' },
      });
      expect(without.body.displayName).toBeUndefined();
      expect(without.body.preferredLanguage).toBeUndefined();
      for (const userId of [id, without.body.id as string])
        expect(await t.services.store.users.findById(userId)).toMatchObject({
          fullName: formatted,
          displayName: null,
          formattedName: formatted,
          locale: null,
        });

      // The page: its userinfo names the full name; no language is answered, so the page's
      // language rule takes the browser's; the page's HTML chooses its texts so.
      const signedIn = await t.signIn({ id, username: 'ada@example.org', password });
      const userInfo = (await t.call(`${API}/userinfo`, {}, signedIn)).json<Json>();
      expect(userInfo).toMatchObject({ fullName: formatted, userId: id });
      expect(userInfo).not.toHaveProperty('userLocale');
      const locale = PAGE_CALLS.userLocale(id);
      expect((await t.call(`${API}/${locale.path}`, locale.body, signedIn)).json()).toEqual({
        error: 0,
        message: '',
        result: { id },
      });
      const html = await t.app.inject({
        method: 'GET',
        url: '/dea/',
        headers: { cookie: signedIn.headers.cookie, 'accept-language': 'ja-JP,en;q=0.5' },
      });
      expect(html.body).toContain('<html lang="ja" dir="ltr">');
      expect(html.body).toContain(pageCallKey(PAGE_CALLS.messages(messageFileName('ja'))));

      // The console shows the full name and no language.
      const admin = await consoleAgent(t, '/dea/admin-api', 'admin');
      expect((await admin.get(`/admin/people/${id}`)).json().result).toMatchObject({
        fullName: formatted,
        locale: null,
      });

      // Given again, the language is the user's.
      await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'preferredLanguage', value: 'fr-CA' }],
      });
      expect((await t.call(`${API}/userinfo`, {}, signedIn)).json()).toMatchObject({ userLocale: 'fr_CA' });
      // A PUT keeps a language it does not name; null leaves none.
      const put = (extra: Record<string, unknown>) =>
        scim.call('PUT', `/Users/${id}`, {
          schemas: [USER],
          userName: 'ada@example.org',
          name: { formatted, givenName: 'Augusta', familyName: 'Lovelace' },
          ...extra,
        });
      expect((await put({})).body).toMatchObject({ preferredLanguage: 'fr-CA' });
      const cleared = await put({ preferredLanguage: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.preferredLanguage).toBeUndefined();
      expect((await t.services.store.users.findById(id))?.locale).toBeNull();
    },
  );

  appTest(
    'keeps name.givenName and familyName, primary, and a group externalId',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.call('POST', '/Users', {
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
      const id = created.body.id as string;
      const read = (await scim.call('GET', `/Users/${id}`)).body;
      // No name.formatted was sent: none is answered.
      expect(read.name).toEqual({ givenName: 'Test', familyName: 'User' });
      expect(read.displayName).toBe('Test User');
      expect((read.phoneNumbers as { primary: boolean }[]).filter((phone) => phone.primary)).toHaveLength(1);
      expect(read.phoneNumbers).toContainEqual({ value: '+49305550100', type: 'work', primary: true });
      expect(read.emails).toEqual([
        { value: 'work@example.com', type: 'work', primary: false },
        { value: 'home@example.com', type: 'home', primary: true },
      ]);
      // A PATCH of the name is applied with displayName set.
      const patched = await scim.call('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'replace', path: 'name.givenName', value: 'Tess' },
          { op: 'replace', path: 'emails[type eq "work"].primary', value: true },
          { op: 'replace', path: 'emails[type eq "home"].primary', value: false },
        ],
      });
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
      await scim.call('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'remove', path: 'externalId' }],
      });
      expect((await scim.call('GET', `/Groups/${groupId}`)).body.externalId).toBeUndefined();
    },
  );

  appTest(
    'answers only the attributes asked for, on GET, lists and POST /.search',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = (await scim.call('POST', '/Users', oktaUser)).body.id as string;
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
      const listed = await scim.call('GET', `/Users?attributes=${encodeURIComponent(`${USER}:userName`)}`);
      expect(listed.body.Resources).toEqual([{ schemas: [USER], id, userName: 'test.user@okta.local' }]);

      const searched = await scim.call('POST', '/Users/.search', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
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
      await scim.call('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'Searched',
        members: [{ value: id }],
      });
      const groups = await scim.call('POST', '/Groups/.search', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
        excludedAttributes: ['members'],
        filter: 'displayName eq "Searched"',
      });
      expect(groups.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: 'Searched' }] });
      expect(groups.body.Resources[0].members).toBeUndefined();
    },
  );

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

describe.each(STORE_KINDS)('SCIM versions and conditional requests (RFC 7644 3.14) on %s', (kind) => {
  appTest.override('storeKind', kind);

  /** A call with extra headers (If-Match, If-None-Match) over real HTTP. */
  async function conditional(
    t: TestApp,
    scim: Scim,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; body: Json; etag: string | null }> {
    const { key } = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      `conditional-${newId()}`,
      ['scim'],
      t.clock.now(),
    );
    const response = await fetch(`${scim.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined && { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      etag: response.headers.get('etag'),
    };
  }

  appTest('users: meta times and version, If-None-Match and If-Match', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    expect((await scim.call('GET', '/ServiceProviderConfig')).body.etag).toEqual({ supported: true });
    const created = await scim.call('POST', '/Users', oktaUser);
    const id = created.body.id as string;
    const first = created.body.meta.version as string;
    expect(first).toMatch(/^W\/".+"$/);
    expect(created.headers.get('etag')).toBe(first);
    expect(created.body.meta).toMatchObject({
      created: new Date(t.clock.now()).toISOString(),
      lastModified: new Date(t.clock.now()).toISOString(),
    });
    expect(await conditional(t, scim, 'GET', `/Users/${id}`, { 'if-none-match': first })).toMatchObject({
      status: 304,
      etag: first,
    });

    t.clock.advance(60_000);
    const patched = await conditional(
      t,
      scim,
      'PATCH',
      `/Users/${id}`,
      { 'if-match': first },
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'Tess User' }] },
    );
    expect(patched.status).toBe(200);
    const second = patched.body.meta.version as string;
    expect(second).not.toBe(first);
    expect(patched.etag).toBe(second);
    expect(patched.body.meta.lastModified).toBe(new Date(t.clock.now()).toISOString());
    expect(patched.body.meta.created).toBe(created.body.meta.created);

    const stale = await conditional(
      t,
      scim,
      'PUT',
      `/Users/${id}`,
      { 'if-match': first },
      { ...oktaUser, displayName: 'Stale' },
    );
    expect(stale).toMatchObject({ status: 412, body: { status: '412' } });
    expect((await t.services.store.users.findById(id))?.fullName).toBe('Tess User');
    expect((await conditional(t, scim, 'GET', `/Users/${id}`, { 'if-none-match': first })).status).toBe(200);
    expect((await conditional(t, scim, 'DELETE', `/Users/${id}`, { 'if-match': first })).status).toBe(412);
    expect(await t.services.store.users.findById(id)).toBeDefined();
    expect((await conditional(t, scim, 'DELETE', `/Users/${id}`, { 'if-match': second })).status).toBe(204);
  });

  appTest('groups: meta times and a version that follows the members', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const member = (await scim.call('POST', '/Users', oktaUser)).body.id as string;
    const created = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Versioned' });
    const id = created.body.id as string;
    const first = created.body.meta.version as string;
    expect(created.headers.get('etag')).toBe(first);
    expect(created.body.meta).toMatchObject({
      created: new Date(t.clock.now()).toISOString(),
      lastModified: new Date(t.clock.now()).toISOString(),
    });
    t.clock.advance(60_000);
    const added = await conditional(
      t,
      scim,
      'PATCH',
      `/Groups/${id}`,
      { 'if-match': first },
      { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: member }] }] },
    );
    expect(added.status).toBe(204);
    const read = await scim.call('GET', `/Groups/${id}?excludedAttributes=members`);
    expect(read.body.meta.version).not.toBe(first);
    expect(read.body.meta.version).toBe(added.etag);
    expect(read.body.meta.lastModified).toBe(new Date(t.clock.now()).toISOString());
    expect(
      await conditional(t, scim, 'GET', `/Groups/${id}`, { 'if-none-match': read.body.meta.version }),
    ).toMatchObject({ status: 304 });
    const stale = await conditional(
      t,
      scim,
      'PUT',
      `/Groups/${id}`,
      { 'if-match': first },
      { schemas: [GROUP], displayName: 'Renamed' },
    );
    expect(stale.status).toBe(412);
    expect(await t.services.store.groups.findByName('Versioned')).toBeDefined();
    expect((await conditional(t, scim, 'DELETE', `/Groups/${id}`, { 'if-match': '*' })).status).toBe(204);
  });
});

describe.each(STORE_KINDS)('SCIM filters evaluated by the store on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'every operator, and, or, not and grouping on the attributes kept',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const make = async (userName: string, extra: Record<string, unknown>) =>
        (await scim.call('POST', '/Users', { schemas: [USER], userName, ...extra })).body.id as string;
      const ann = await make('ann.lee', {
        externalId: 'x-1',
        name: { givenName: 'Ann', familyName: 'Lee' },
        timezone: 'Europe/Berlin',
        preferredLanguage: 'de-AT',
      });
      t.clock.advance(60_000);
      const bo = await make('bo.kim', { externalId: 'x-2', displayName: 'Bo Kim', active: false });
      t.clock.advance(60_000);
      const cy = await make('cy%_ley', { displayName: 'Cy' });
      const ids = async (filter: string) => {
        const answer = await scim.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        expect(answer.status, filter).toBe(200);
        return (answer.body.Resources as { id: string }[]).map((user) => user.id).sort();
      };
      const sorted = (...list: string[]) => list.sort();
      expect(await ids('userName eq "ANN.LEE"')).toEqual([ann]);
      expect(await ids('userName ne "ann.lee"')).toEqual(sorted(bo, cy));
      expect(await ids('userName co "."')).toEqual(sorted(ann, bo));
      // No pattern characters: % and _ are themselves.
      expect(await ids('userName co "%_"')).toEqual([cy]);
      expect(await ids('userName sw "B"')).toEqual([bo]);
      expect(await ids('userName ew "KIM"')).toEqual([bo]);
      expect(await ids('externalId pr')).toEqual(sorted(ann, bo));
      expect(await ids('not (externalId pr)')).toEqual([cy]);
      expect(await ids('externalId eq "X-1"')).toEqual([]);
      expect(await ids('name.givenName eq "ann" and name.familyName sw "l"')).toEqual([ann]);
      expect(await ids('displayName eq "bo kim" or timezone eq "Europe/Berlin"')).toEqual(sorted(ann, bo));
      expect(await ids('preferredLanguage eq "de-at"')).toEqual([ann]);
      expect(await ids('active eq false')).toEqual([bo]);
      expect(await ids('active ne false')).toEqual(sorted(ann, cy));
      expect(await ids('timezone eq null')).toEqual(sorted(bo, cy));
      const second = new Date(t.clock.now() - 60_000).toISOString();
      expect(await ids(`meta.created gt "${second}"`)).toEqual([cy]);
      expect(await ids(`meta.created ge "${second}"`)).toEqual(sorted(bo, cy));
      expect(await ids(`meta.created lt "${second}"`)).toEqual([ann]);
      expect(await ids(`meta.lastModified le "${second}"`)).toEqual(sorted(ann, bo));
      expect(
        await ids('(userName sw "a" or userName sw "c") and not (displayName eq "Cy" or active eq false)'),
      ).toEqual([ann]);
      expect(await scim.call('GET', `/Users?filter=${encodeURIComponent('active gt true')}`)).toMatchObject({
        status: 400,
        body: { scimType: 'invalidFilter' },
      });

      await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Alpha', externalId: 'g-a' });
      await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Beta' });
      const groups = async (filter: string) =>
        (
          (await scim.call('GET', `/Groups?filter=${encodeURIComponent(filter)}`)).body.Resources as {
            displayName: string;
          }[]
        ).map((group) => group.displayName);
      expect(await groups('displayName eq "alpha"')).toEqual(['Alpha']);
      expect(await groups('displayName co "ET" or externalId eq "g-a"')).toEqual(['Alpha', 'Beta']);
      expect(await groups('not (externalId pr)')).toEqual(['Beta']);
    },
  );
});
