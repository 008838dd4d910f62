import { describe } from 'vitest';
import { newId } from '../crypto/ids.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import {
  GROUP,
  type Json,
  oktaUser,
  PATCH,
  type Scim,
  scimClient,
  scimOver,
} from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

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
  const answer = await scimOver([scim.base.replace(/\/scim\/v2$/, '')], key)(0, method, path, body, headers);
  return { status: answer.status, body: answer.body, etag: answer.headers.get('etag') };
}

/** Okta's user, created, and a minute later changed by a PATCH that named its first version. */
async function changedUser(t: TestApp, scim: Scim) {
  const created = await scim.call('POST', '/Users', oktaUser);
  const id = created.body.id as string;
  const first = created.body.meta.version as string;
  t.clock.advance(60_000);
  const patched = await conditional(
    t,
    scim,
    'PATCH',
    `/Users/${id}`,
    { 'if-match': first },
    { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'Tess User' }] },
  );
  return { created, id, first, patched, second: patched.body.meta.version as string };
}

describe.each(DOOR_STORE_KINDS)(
  'SCIM versions and conditional requests (RFC 7644 3.14) of users on %s',
  (kind) => {
    appTest.override('storeKind', kind);

    appTest('says it supports ETags', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      expect((await scim.call('GET', '/ServiceProviderConfig')).body.etag).toEqual({ supported: true });
    });

    appTest(
      'a user is created with its times and a weak version, also as ETag',
      async ({ startApp, expect }) => {
        const t = await startApp();
        const scim = await scimClient(t);
        const created = await scim.call('POST', '/Users', oktaUser);
        const first = created.body.meta.version as string;
        expect(first).toMatch(/^W\/".+"$/);
        expect(created.headers.get('etag')).toBe(first);
        expect(created.body.meta).toMatchObject({
          created: new Date(t.clock.now()).toISOString(),
          lastModified: new Date(t.clock.now()).toISOString(),
        });
      },
    );

    appTest('If-None-Match of the current version answers 304', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.call('POST', '/Users', oktaUser);
      const first = created.body.meta.version as string;
      expect(
        await conditional(t, scim, 'GET', `/Users/${created.body.id}`, { 'if-none-match': first }),
      ).toMatchObject({ status: 304, etag: first });
    });

    appTest(
      'a PATCH with If-Match of the current version is done: a new version, lastModified moved, created kept',
      async ({ startApp, expect }) => {
        const t = await startApp();
        const scim = await scimClient(t);
        const { created, first, patched, second } = await changedUser(t, scim);
        expect(patched.status).toBe(200);
        expect(second).not.toBe(first);
        expect(patched.etag).toBe(second);
        expect(patched.body.meta.lastModified).toBe(new Date(t.clock.now()).toISOString());
        expect(patched.body.meta.created).toBe(created.body.meta.created);
      },
    );

    appTest(
      'a PUT or DELETE of a stale version answers 412 and changes nothing; If-None-Match of it answers 200',
      async ({ startApp, expect }) => {
        const t = await startApp();
        const scim = await scimClient(t);
        const { id, first } = await changedUser(t, scim);
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
        expect((await conditional(t, scim, 'GET', `/Users/${id}`, { 'if-none-match': first })).status).toBe(
          200,
        );
        expect((await conditional(t, scim, 'DELETE', `/Users/${id}`, { 'if-match': first })).status).toBe(
          412,
        );
        expect(await t.services.store.users.findById(id)).toBeDefined();
      },
    );

    appTest('a DELETE with If-Match of the current version is done', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { id, second } = await changedUser(t, scim);
      expect((await conditional(t, scim, 'DELETE', `/Users/${id}`, { 'if-match': second })).status).toBe(204);
    });
  },
);

describe.each(DOOR_STORE_KINDS)(
  'SCIM versions and conditional requests (RFC 7644 3.14) of groups on %s',
  (kind) => {
    appTest.override('storeKind', kind);

    /** A group, created, and a minute later given a member by a PATCH that named its first version. */
    async function grownGroup(t: TestApp, scim: Scim) {
      const member = await scim.create(oktaUser);
      const created = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Versioned' });
      const id = created.body.id as string;
      const first = created.body.meta.version as string;
      t.clock.advance(60_000);
      const added = await conditional(
        t,
        scim,
        'PATCH',
        `/Groups/${id}`,
        { 'if-match': first },
        { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: member }] }] },
      );
      return { id, first, added };
    }

    appTest('a group is created with its times and a version, also as ETag', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const created = await scim.call('POST', '/Groups', { schemas: [GROUP], displayName: 'Versioned' });
      expect(created.headers.get('etag')).toBe(created.body.meta.version as string);
      expect(created.body.meta).toMatchObject({
        created: new Date(t.clock.now()).toISOString(),
        lastModified: new Date(t.clock.now()).toISOString(),
      });
    });

    appTest(
      "a member added changes the group's version and lastModified; If-None-Match of the new one answers 304",
      async ({ startApp, expect }) => {
        const t = await startApp();
        const scim = await scimClient(t);
        const { id, first, added } = await grownGroup(t, scim);
        expect(added.status).toBe(204);
        const read = await scim.call('GET', `/Groups/${id}?excludedAttributes=members`);
        expect(read.body.meta.version).not.toBe(first);
        expect(read.body.meta.version).toBe(added.etag);
        expect(read.body.meta.lastModified).toBe(new Date(t.clock.now()).toISOString());
        expect(
          await conditional(t, scim, 'GET', `/Groups/${id}`, { 'if-none-match': read.body.meta.version }),
        ).toMatchObject({ status: 304 });
      },
    );

    appTest('a PUT of a stale version answers 412 and changes nothing', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { id, first } = await grownGroup(t, scim);
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
    });

    appTest('a DELETE with If-Match * is done', async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { id } = await grownGroup(t, scim);
      expect((await conditional(t, scim, 'DELETE', `/Groups/${id}`, { 'if-match': '*' })).status).toBe(204);
    });
  },
);
