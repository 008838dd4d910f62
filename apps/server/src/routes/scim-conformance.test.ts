import { describe } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import {
  ERROR,
  GROUP,
  type Json,
  LIST,
  type Scim,
  scimClient,
  SEARCH,
  USER,
} from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/**
 * What an independent conformance suite (python-scim's scim2-tester, run against this server as
 * docs/benchmarks.md records) found, each as a test of its own.
 */

/** The ids of a list's resources. */
const idsOf = (list: Json): string[] => (list.Resources as { id: string }[]).map((resource) => resource.id);

/** The conformance suite's client: a call over real HTTP with a service key of its own. */
async function scimOf(t: TestApp): Promise<Scim['call']> {
  return (await scimClient(t, { name: 'conformance' })).call;
}

describe.each(STORE_KINDS)('SCIM conformance findings on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'POST /.search at the root searches Users and Groups (RFC 7644 3.4.3), GET at the root too',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimOf(t);
      const user = (
        await scim('POST', '/Users', { schemas: [USER], userName: 'root@example.org', displayName: 'Root' })
      ).body;
      const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Root searchers' })).body;

      const all = await scim('POST', '/.search', { schemas: [SEARCH] });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2 });
      expect(idsOf(all.body).sort()).toEqual([user.id, group.id].sort());

      // attributes and excludedAttributes per resource type; id and schemas are always returned.
      const projected = await scim('POST', '/.search', {
        schemas: [SEARCH],
        attributes: ['displayName'],
      });
      const byId = new Map(
        (projected.body.Resources as { id: string }[]).map((resource) => [resource.id, resource]),
      );
      expect(byId.get(group.id)).toEqual({ schemas: [GROUP], id: group.id, displayName: 'Root searchers' });
      expect(byId.get(user.id)).toEqual({ schemas: [USER], id: user.id, displayName: 'Root' });

      // A filter both types know selects from both; one only Users know, from Users alone.
      const named = await scim('POST', '/.search', {
        schemas: [SEARCH],
        filter: 'displayName co "searchers"',
      });
      expect(idsOf(named.body)).toEqual([group.id]);
      const users = await scim('POST', '/.search', {
        schemas: [SEARCH],
        filter: 'userName eq "root@example.org"',
      });
      expect(users.body).toMatchObject({ totalResults: 1, Resources: [{ id: user.id }] });
      const paged = await scim('POST', '/.search', { schemas: [SEARCH], startIndex: 2, count: 1 });
      expect(paged.body).toMatchObject({ totalResults: 2, startIndex: 2, itemsPerPage: 1 });
      // An attribute neither knows is refused as for a type's own search.
      expect(await scim('POST', '/.search', { schemas: [SEARCH], filter: 'nickName eq "x"' })).toMatchObject({
        status: 400,
        body: { schemas: [ERROR], scimType: 'invalidFilter' },
      });

      const root = await scim('GET', `?filter=${encodeURIComponent('displayName eq "Root searchers"')}`);
      expect(root).toMatchObject({ status: 200, body: { totalResults: 1, Resources: [{ id: group.id }] } });
    },
  );

  appTest('a language that is none is refused quoting the tag as sent', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimOf(t);
    const refused = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'lang@example.org',
      preferredLanguage: '64725bd3-7fe8-497a',
    });
    expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect(refused.body.detail).toBe(
      'preferredLanguage "64725bd3-7fe8-497a" is not a language code such as en or pt-BR',
    );
  });

  appTest(
    'a phone number as a tel URI (RFC 7643 4.1.2, RFC 3966) is taken as the number it names',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimOf(t);
      const created = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'tel@example.org',
        phoneNumbers: [
          { type: 'mobile', value: 'tel:+1-201-555-0123', primary: true },
          { type: 'work', value: 'TEL:+49-30-555-0199' },
        ],
      });
      expect(created.status).toBe(201);
      const channels = await t.services.store.channels.listOfUser(created.body.id);
      expect(Object.fromEntries(channels.map((channel) => [channel.key, channel.address]))).toMatchObject({
        mobile: '+12015550123',
        telephone: '+49305550199',
      });
      expect(created.body.phoneNumbers).toContainEqual({
        type: 'mobile',
        value: '+12015550123',
        primary: true,
      });
      // A tel URI of a local number (no +) names no number anyone can be reached at from here.
      const local = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'local@example.org',
        phoneNumbers: [{ type: 'mobile', value: 'tel:7042;phone-context=example.com' }],
      });
      expect(local).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
      // An extension or another parameter is no part of a number a code can be sent to.
      const extension = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'extension@example.org',
        phoneNumbers: [{ type: 'work', value: 'tel:+49-30-555-0199;ext=12' }],
      });
      expect(extension).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
      expect(extension.body.detail).toContain(';ext=12');
      expect(await t.services.store.users.listOfSource('scim')).toHaveLength(1);
    },
  );

  appTest(
    'every attribute a User or Group answers is one its published schema describes, with its sub-attributes',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimOf(t);
      const user = await scim('POST', '/Users', {
        schemas: [USER],
        userName: 'described@example.org',
        externalId: 'described-1',
        name: { givenName: 'Des', familyName: 'Cribed' },
        preferredLanguage: 'de',
        timezone: 'Europe/Berlin',
        emails: [{ type: 'work', value: 'described@example.org', primary: true }],
        phoneNumbers: [{ type: 'mobile', value: '+49 170 5550112' }],
      });
      const group = await scim('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'Described',
        externalId: 'described-group',
        members: [{ value: user.body.id }],
      });
      const published = (await scim('GET', '/Schemas')).body.Resources as Json[];
      /** Each name the resource answers, checked against the attributes the schema lists. */
      const undescribed = (resource: Json, attributes: Json[], at = ''): string[] =>
        Object.entries(resource).flatMap(([name, value]) => {
          if (at === '' && ['schemas', 'id', 'externalId', 'meta'].includes(name)) return [];
          const described = attributes.find((attribute) => attribute.name === name);
          if (described === undefined) return [`${at}${name}`];
          if (described.type !== 'complex') return [];
          const values: Json[] = Array.isArray(value) ? value : [value];
          return values.flatMap((each) => undescribed(each, described.subAttributes ?? [], `${at}${name}.`));
        });
      for (const [resource, urn] of [
        [(await scim('GET', `/Users/${user.body.id}`)).body, USER],
        [(await scim('GET', `/Groups/${group.body.id}`)).body, GROUP],
      ] as const) {
        const schema = published.find((each) => each.id === urn);
        expect(undescribed(resource, schema.attributes), urn).toEqual([]);
      }
    },
  );

  appTest(
    'sortBy and sortOrder on the attributes kept, by the store (RFC 7644 3.4.2.3); /Me and /Bulk are 501',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimOf(t);
      expect((await scim('GET', '/ServiceProviderConfig')).body.sort).toEqual({ supported: true });
      const ids = new Map<string, string>();
      for (const [userName, familyName, active] of [
        ['carol@example.org', 'Bravo', true],
        ['alice@example.org', 'charlie', false],
        ['bob@example.org', undefined, true],
        ['dave@example.org', 'alpha', true],
      ] as const) {
        const created = await scim('POST', '/Users', {
          schemas: [USER],
          userName,
          active,
          ...(familyName !== undefined && { name: { familyName } }),
        });
        ids.set(created.body.id as string, userName);
        t.clock.advance(1_000);
      }
      const names = async (query: string) =>
        idsOf((await scim('GET', `/Users?${query}`)).body).map((id) => ids.get(id));

      expect(await names('sortBy=userName')).toEqual([
        'alice@example.org',
        'bob@example.org',
        'carol@example.org',
        'dave@example.org',
      ]);
      expect(await names('sortBy=userName&sortOrder=descending')).toEqual([
        'dave@example.org',
        'carol@example.org',
        'bob@example.org',
        'alice@example.org',
      ]);
      // Case-insensitive strings sort without case; a user without the value comes last ascending.
      expect(await names('sortBy=name.familyName')).toEqual([
        'dave@example.org',
        'carol@example.org',
        'alice@example.org',
        'bob@example.org',
      ]);
      expect(await names('sortBy=name.familyName&sortOrder=descending')).toEqual([
        'bob@example.org',
        'alice@example.org',
        'carol@example.org',
        'dave@example.org',
      ]);
      // The full URN of an attribute names it too; times sort as times; false before true.
      expect(
        await names(`sortBy=${encodeURIComponent(`${USER}:meta.created`)}&sortOrder=descending`),
      ).toEqual(['dave@example.org', 'bob@example.org', 'alice@example.org', 'carol@example.org']);
      expect((await names('sortBy=active&sortOrder=ascending'))[0]).toBe('alice@example.org');
      // Sorted, then paged; with a filter; in a search's body.
      expect(await names('sortBy=userName&startIndex=2&count=2')).toEqual([
        'bob@example.org',
        'carol@example.org',
      ]);
      expect(
        await names(`sortBy=userName&sortOrder=descending&filter=${encodeURIComponent('active eq true')}`),
      ).toEqual(['dave@example.org', 'carol@example.org', 'bob@example.org']);
      const searched = await scim('POST', '/Users/.search', {
        schemas: [SEARCH],
        sortBy: 'userName',
        sortOrder: 'descending',
        count: 1,
      });
      expect(idsOf(searched.body).map((id) => ids.get(id))).toEqual(['dave@example.org']);
      for (const name of ['Zulu', 'alpha', 'Mike'])
        await scim('POST', '/Groups', { schemas: [GROUP], displayName: name });
      const groups = await scim('GET', '/Groups?sortBy=displayName');
      expect((groups.body.Resources as { displayName: string }[]).map((group) => group.displayName)).toEqual([
        'alpha',
        'Mike',
        'Zulu',
      ]);

      // What cannot be sorted is refused, naming what can.
      for (const query of ['sortBy=emails', 'sortBy=nickName', 'sortBy=userName&sortOrder=sideways']) {
        const refused = await scim('GET', `/Users?${query}`);
        expect(refused, query).toMatchObject({ status: 400, body: { schemas: [ERROR] } });
      }
      expect((await scim('GET', '/Users?sortBy=emails')).body.detail).toContain('username, ');
      expect(await scim('POST', '/.search', { schemas: [SEARCH], sortBy: 'displayName' })).toMatchObject({
        status: 400,
        body: { scimType: 'invalidValue' },
      });

      // RFC 7644 3.11: a service provider without /Me answers 501; the same for /Bulk (3.7).
      for (const [method, path] of [
        ['GET', '/Me'],
        ['PUT', '/Me'],
        ['PATCH', '/Me'],
        ['DELETE', '/Me'],
        ['POST', '/Me'],
        ['POST', '/Bulk'],
      ] as const) {
        const answer = await scim(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        expect(answer, `${method} ${path}`).toMatchObject({
          status: 501,
          body: { schemas: [ERROR], status: '501' },
        });
      }
    },
  );
});
