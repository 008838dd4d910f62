import { describe, expect, it } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import { startTwoInstances } from '../testing/instances.js';
import { GROUP, PATCH, scimOver, USER } from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';

/** How many writers hold the same version at once. */
const WRITERS = 8;

type Call = ReturnType<typeof scimOver>;

/**
 * WRITERS clients read the same version and each sends its own change with that version as
 * If-Match, all at once (PUT and PATCH taking turns): exactly one is applied (RFC 7644 section
 * 3.14), every other answers 412 and changes nothing.
 */
async function oneWriterWins(call: Call, audited: () => Promise<number>): Promise<void> {
  const user = await call(0, 'POST', '/Users', {
    schemas: [USER],
    userName: 'racer@example.org',
    displayName: 'Racer',
    externalId: 'racer-1',
  });
  expect(user.status).toBe(201);
  const id = user.body?.id as string;
  const version = user.body?.meta.version as string;
  const before = await audited();
  const users = await Promise.all(
    Array.from({ length: WRITERS }, (_, index) =>
      index % 2 === 0
        ? call(
            index,
            'PUT',
            `/Users/${id}`,
            {
              schemas: [USER],
              userName: 'racer@example.org',
              externalId: 'racer-1',
              displayName: `Writer ${index}`,
            },
            { 'if-match': version },
          )
        : call(
            index,
            'PATCH',
            `/Users/${id}`,
            {
              schemas: [PATCH],
              Operations: [{ op: 'replace', path: 'displayName', value: `Writer ${index}` }],
            },
            { 'if-match': version },
          ),
    ),
  );
  const statuses = users.map((answer) => answer.status).sort();
  expect(statuses).toEqual([200, ...Array<number>(WRITERS - 1).fill(412)]);
  expect((await audited()) - before).toBe(1);
  const winner = users.findIndex((answer) => answer.status === 200);
  const read = await call(0, 'GET', `/Users/${id}`);
  expect(read.body).toMatchObject({ displayName: `Writer ${winner}` });
  expect(read.body?.meta.version).toBe(users[winner]?.body?.meta.version);

  const group = await call(0, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Racing' });
  const groupId = group.body?.id as string;
  const groupVersion = group.body?.meta.version as string;
  const groups = await Promise.all(
    Array.from({ length: WRITERS }, (_, index) =>
      index % 2 === 0
        ? call(
            index,
            'PUT',
            `/Groups/${groupId}`,
            { schemas: [GROUP], displayName: `Racing ${index}`, members: [{ value: id }] },
            { 'if-match': groupVersion },
          )
        : call(
            index,
            'PATCH',
            `/Groups/${groupId}`,
            {
              schemas: [PATCH],
              Operations: [{ op: 'replace', path: 'displayName', value: `Racing ${index}` }],
            },
            { 'if-match': groupVersion },
          ),
    ),
  );
  const won = groups.filter((answer) => answer.status === 200 || answer.status === 204);
  expect(won).toHaveLength(1);
  expect(groups.filter((answer) => answer.status === 412)).toHaveLength(WRITERS - 1);
  const winnerGroup = groups.findIndex((answer) => answer.status === 200 || answer.status === 204);
  expect((await call(0, 'GET', `/Groups/${groupId}`)).body).toMatchObject({
    displayName: `Racing ${winnerGroup}`,
  });

  // Deletes holding the user's version (now with the group the winning PUT gave them): the
  // first one wins; those after it find no user.
  const current = (await call(0, 'GET', `/Users/${id}`)).body?.meta.version as string;
  // One version whichever instance (host, port) answers, though its group's $ref names that one.
  expect((await call(1, 'GET', `/Users/${id}`)).body?.meta.version).toBe(current);
  const deletes = await Promise.all(
    Array.from({ length: WRITERS }, (_, index) =>
      call(index, 'DELETE', `/Users/${id}`, undefined, { 'if-match': current }),
    ),
  );
  expect(deletes.map((answer) => answer.status).sort()).toEqual([
    204,
    ...Array<number>(WRITERS - 1).fill(404),
  ]);
}

describe.each(STORE_KINDS)('SCIM If-Match is part of the write on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'of writers holding the same version at once, exactly one changes the resource',
    async ({ startApp }) => {
      const t = await startApp();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'racers',
        ['scim'],
        t.clock.now(),
      );
      await oneWriterWins(
        scimOver([base], key),
        async () => (await t.services.store.audit.list({ event: 'user.updated' })).length,
      );
    },
    120_000,
  );
});

describe('SCIM If-Match across two instances of one PostgreSQL store', () => {
  it('of writers holding the same version at once on either instance, exactly one wins', async () => {
    const instances = await startTwoInstances();
    const { a, b } = instances;
    try {
      const { key } = await createServiceKey(
        a.services.store,
        a.services.keys.serviceKey,
        'racers',
        ['scim'],
        Date.now(),
      );
      await oneWriterWins(
        scimOver([a.base, b.base], key),
        async () => (await a.services.store.audit.list({ event: 'user.updated' })).length,
      );
    } finally {
      await instances.close();
    }
  }, 120_000);
});
