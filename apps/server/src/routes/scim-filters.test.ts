import { describe, type ExpectStatic } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { GROUP, type Scim, scimClient, USER } from '../testing/scim-client.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';

/**
 * Three users a minute apart: ann with a name, time zone and language, bo inactive with a display
 * name, cy with pattern characters in its name; and `ids`, the ids a filter finds, sorted.
 */
async function threeUsers(t: TestApp, scim: Scim, expect: ExpectStatic) {
  const make = (userName: string, extra: Record<string, unknown>) =>
    scim.create({ schemas: [USER], userName, ...extra });
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
    const answer = await scim.filter('/Users', filter);
    expect(answer.status, filter).toBe(200);
    return (answer.body.Resources as { id: string }[]).map((user) => user.id).sort();
  };
  return { ann, bo, cy, ids };
}

const sorted = (...list: string[]) => list.sort();

describe.each(STORE_KINDS)('SCIM filters evaluated by the store on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('eq, ne, co, sw and ew on userName, in any case', async ({ startApp, expect }) => {
    const t = await startApp();
    const { ann, bo, cy, ids } = await threeUsers(t, await scimClient(t), expect);
    expect(await ids('userName eq "ANN.LEE"')).toEqual([ann]);
    expect(await ids('userName ne "ann.lee"')).toEqual(sorted(bo, cy));
    expect(await ids('userName co "."')).toEqual(sorted(ann, bo));
    // No pattern characters: % and _ are themselves.
    expect(await ids('userName co "%_"')).toEqual([cy]);
    expect(await ids('userName sw "B"')).toEqual([bo]);
    expect(await ids('userName ew "KIM"')).toEqual([bo]);
  });

  appTest('pr and not, externalId case-exact', async ({ startApp, expect }) => {
    const t = await startApp();
    const { ann, bo, cy, ids } = await threeUsers(t, await scimClient(t), expect);
    expect(await ids('externalId pr')).toEqual(sorted(ann, bo));
    expect(await ids('not (externalId pr)')).toEqual([cy]);
    expect(await ids('externalId eq "X-1"')).toEqual([]);
  });

  appTest(
    'and, or and grouping over the name, displayName, time zone, language, active and null',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const { ann, bo, cy, ids } = await threeUsers(t, await scimClient(t), expect);
      expect(await ids('name.givenName eq "ann" and name.familyName sw "l"')).toEqual([ann]);
      expect(await ids('displayName eq "bo kim" or timezone eq "Europe/Berlin"')).toEqual(sorted(ann, bo));
      expect(await ids('preferredLanguage eq "de-at"')).toEqual([ann]);
      expect(await ids('active eq false')).toEqual([bo]);
      expect(await ids('active ne false')).toEqual(sorted(ann, cy));
      expect(await ids('timezone eq null')).toEqual(sorted(bo, cy));
      expect(
        await ids('(userName sw "a" or userName sw "c") and not (displayName eq "Cy" or active eq false)'),
      ).toEqual([ann]);
    },
  );

  appTest('gt, ge, lt and le on the times of meta', async ({ startApp, expect }) => {
    const t = await startApp();
    const { ann, bo, cy, ids } = await threeUsers(t, await scimClient(t), expect);
    const second = new Date(t.clock.now() - 60_000).toISOString();
    expect(await ids(`meta.created gt "${second}"`)).toEqual([cy]);
    expect(await ids(`meta.created ge "${second}"`)).toEqual(sorted(bo, cy));
    expect(await ids(`meta.created lt "${second}"`)).toEqual([ann]);
    expect(await ids(`meta.lastModified le "${second}"`)).toEqual(sorted(ann, bo));
  });

  appTest('refuses an order on a boolean as invalidFilter', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    expect(await scim.filter('/Users', 'active gt true')).toMatchObject({
      status: 400,
      body: { scimType: 'invalidFilter' },
    });
  });

  appTest('eq, co, or, pr and not on groups', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    await scim.create({ schemas: [GROUP], displayName: 'Alpha', externalId: 'g-a' }, '/Groups');
    await scim.create({ schemas: [GROUP], displayName: 'Beta' }, '/Groups');
    const groups = async (filter: string) =>
      ((await scim.filter('/Groups', filter)).body.Resources as { displayName: string }[]).map(
        (group) => group.displayName,
      );
    expect(await groups('displayName eq "alpha"')).toEqual(['Alpha']);
    expect(await groups('displayName co "ET" or externalId eq "g-a"')).toEqual(['Alpha', 'Beta']);
    expect(await groups('not (externalId pr)')).toEqual(['Beta']);
  });
});
