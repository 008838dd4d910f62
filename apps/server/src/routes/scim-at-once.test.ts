import { describe, expect, it } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import { startTwoInstances } from '../testing/instances.js';
import { entraUser, GROUP, oktaUser, PATCH, scimClient, scimOver } from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';

describe.each(STORE_KINDS)('SCIM calls at once on %s', (kind) => {
  appTest.override('storeKind', kind);

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
      const call = scimOver([a.base, b.base], key);
      const creates = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          call(index, 'POST', '/Users', { ...oktaUser, password: undefined }),
        ),
      );
      expect(creates.map((response) => response.status).sort()).toEqual([
        201,
        ...Array<number>(11).fill(409),
      ]);
      const [user] = await a.services.store.users.listOfSource('scim');
      expect(await a.services.store.audit.list({ event: 'user.created' })).toHaveLength(1);

      const group = (await call(0, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Okta VPN' }))
        .body as {
        id: string;
      };
      const adds = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          call(index, 'PATCH', `/Groups/${group.id}`, {
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
