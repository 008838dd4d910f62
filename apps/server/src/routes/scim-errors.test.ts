import { usernameOrThrow } from '@dea/contract';
import { describe, type ExpectStatic } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { newId } from '../crypto/ids.js';
import { appTest } from '../testing/fixtures.js';
import { ERROR, GROUP, oktaUser, PATCH, type Scim, scimClient, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestUser } from '../testing/test-app.js';

/** A call refused: method, path, body, status, scimType and a part of the detail. */
type Refusal = [string, string, unknown, number, string | undefined, string];

/** Each call answered in SCIM's error envelope with its status, scimType and detail. */
async function expectRefused(scim: Scim, cases: Refusal[], expect: ExpectStatic): Promise<void> {
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
}

/** The calls refused, by what they try; `taken` is a local user's (an operator's, not SCIM's). */
const REFUSALS: [string, (taken: TestUser) => Refusal[]][] = [
  [
    'a create with a taken name, a field out of its rules or a body not JSON',
    (taken) => [
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
    ],
  ],
  [
    'a filter it cannot read, a user it does not have or does not own, an endpoint it has not',
    (taken) => [
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
      ['GET', '/Nothing', undefined, 404, undefined, 'no such endpoint'],
    ],
  ],
  [
    'a PATCH of a local user, whose user name comes from the administrators',
    (taken) => [
      [
        'PATCH',
        `/Users/${taken.id}`,
        { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] },
        400,
        'mutability',
        `${taken.username}'s user name comes from the administrators`,
      ],
    ],
  ],
];

describe.each(DOOR_STORE_KINDS)('SCIM refuses in its error format and changes nothing, on %s', (kind) => {
  appTest.override('storeKind', kind);

  for (const [name, refusalsOf] of REFUSALS)
    appTest(name, async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const taken = await t.createUser();
      const before = await t.services.store.users.count();
      await expectRefused(scim, refusalsOf(taken), expect);
      expect(await t.services.store.users.count()).toBe(before);
      expect(await t.services.store.users.findByUsername(usernameOrThrow(taken.username))).toMatchObject({
        source: 'local',
        disabled: false,
      });
    });

  appTest(
    'a PATCH with an unknown op or a path it cannot read, the user unchanged',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.create(oktaUser);
      const badPatch = await scim.patch(`/Users/${created}`, { op: 'move', path: 'active', value: false });
      expect(badPatch).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
      const badPath = await scim.patch(`/Users/${created}`, {
        op: 'replace',
        path: 'emails[type eq "work"',
        value: 'x@example.com',
      });
      expect(badPath).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
      expect(await t.services.store.users.findById(created)).toMatchObject({ disabled: false });
    },
  );

  appTest(
    "a password out of every door's rule in a PATCH's value, the upper bound too, the hash unchanged",
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.create(oktaUser);
      const stored = await t.services.store.users.findById(created);
      for (const password of ['x'.repeat(1025), 'seven77']) {
        const badPassword = await scim.patch(`/Users/${created}`, { op: 'replace', value: { password } });
        expect(badPassword).toMatchObject({
          status: 400,
          body: { scimType: 'invalidValue', detail: 'the password must have 8 to 1024 characters' },
        });
      }
      expect((await t.services.store.users.findById(created))?.passwordHash).toBe(stored?.passwordHash);
    },
  );

  appTest('401 without a key, with a wrong one, or with one not for SCIM', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
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
});
