import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageFileName, PAGE_CALLS, pageCallKey } from '@dea/contract';
import { describe } from 'vitest';
import { API } from '../testing/api-bodies.js';
import { consoleAgent } from '../testing/console-agent.js';
import { appTest } from '../testing/fixtures.js';
import { type Json, type Scim, scimClient, USER } from '../testing/scim-client.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';
import { testFolder } from '../testing/test-folder.js';

/** The page's HTML as built, where the server puts its startup answers. */
const PAGE_TEMPLATE = `<!doctype html>
<html lang="en">
  <head><script type="module" src="/dea/assets/dea.js"></script></head>
  <body>
    <div id="root"><!--first-paint--><!--/first-paint--></div>
  </body>
</html>
`;

const formatted = 'Dr. Ada M. Lovelace, PhD';
const password = 'Analytical1843';

/** Ada as the identity provider creates her: a display name, a formatted name, a language. */
const ada = {
  schemas: [USER],
  userName: 'ada@example.org',
  displayName: 'Ada L.',
  name: { formatted, givenName: 'Ada', familyName: 'Lovelace' },
  preferredLanguage: 'de',
  password,
};

/** Ada renamed Augusta by a PATCH of her given name; the number of users a filter finds. */
async function augusta(scim: Scim): Promise<{ id: string; filtered: (filter: string) => Promise<number> }> {
  const id = await scim.create(ada);
  await scim.patch(`/Users/${id}`, { op: 'replace', path: 'name.givenName', value: 'Augusta' });
  const filtered = async (filter: string) =>
    (await scim.filter('/Users', filter)).body.totalResults as number;
  return { id, filtered };
}

/** Augusta's displayName and preferredLanguage removed by a PATCH; its answer. */
function withoutDisplayNameAndLanguage(scim: Scim, id: string): ReturnType<Scim['call']> {
  return scim.patch(
    `/Users/${id}`,
    { op: 'remove', path: 'displayName' },
    { op: 'remove', path: 'preferredLanguage' },
  );
}

/** An app serving the page's HTML too, from a folder removed when the test ends. */
async function appWithPage(
  startApp: (settings?: Record<string, string>) => Promise<TestApp>,
  onTestFinished: (cleanup: () => void) => void,
): Promise<TestApp> {
  const webDir = testFolder('web', onTestFinished);
  mkdirSync(join(webDir, 'dea'));
  writeFileSync(join(webDir, 'dea', 'index.html'), PAGE_TEMPLATE);
  return startApp({ DEA_WEB_DIR: webDir });
}

describe.each(DOOR_STORE_KINDS)('SCIM names and language on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest('keeps name.formatted as given, and finds it', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const created = await scim.call('POST', '/Users', ada);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      displayName: 'Ada L.',
      name: { formatted, givenName: 'Ada', familyName: 'Lovelace' },
      preferredLanguage: 'de',
    });
    expect(
      (await scim.filter('/Users', `name.formatted eq "${formatted}"`)).body.totalResults as number,
    ).toBe(1);
  });

  appTest(
    'a part of the name changes; name.formatted stays as the client gave it',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const id = await scim.create(ada);
      const renamed = await scim.patch(`/Users/${id}`, {
        op: 'replace',
        path: 'name.givenName',
        value: 'Augusta',
      });
      expect(renamed.body.name).toEqual({ formatted, givenName: 'Augusta', familyName: 'Lovelace' });
    },
  );

  appTest(
    'a PATCH remove leaves displayName and preferredLanguage unassigned: answered, read, filtered, stored and audited so',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const { id, filtered } = await augusta(scim);
      const removed = await withoutDisplayNameAndLanguage(scim, id);
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
      expect(await t.services.store.users.findById(id)).toMatchObject({
        fullName: formatted,
        displayName: null,
        formattedName: formatted,
        locale: null,
      });
    },
  );

  appTest(
    'a user created without displayName and preferredLanguage: the full name made of the name, no language',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const scim = await scimClient(t);
      const without = await scim.call('POST', '/Users', {
        schemas: [USER],
        userName: 'augusta@example.org',
        name: { formatted, givenName: 'Augusta', familyName: 'Lovelace' },
      });
      expect(without.body.displayName).toBeUndefined();
      expect(without.body.preferredLanguage).toBeUndefined();
      expect(await t.services.store.users.findById(without.body.id as string)).toMatchObject({
        fullName: formatted,
        displayName: null,
        formattedName: formatted,
        locale: null,
      });
    },
  );

  appTest(
    "without them, the page names the full name and speaks the browser's language",
    async ({ startApp, expect, onTestFinished }) => {
      const t = await appWithPage(startApp, onTestFinished);
      const scim = await scimClient(t);
      const { id } = await augusta(scim);
      await withoutDisplayNameAndLanguage(scim, id);
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
    },
  );

  appTest('without them, the console shows the full name and no language', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { id } = await augusta(scim);
    await withoutDisplayNameAndLanguage(scim, id);
    const admin = await consoleAgent(t, '/dea/admin-api', 'admin');
    expect((await admin.get(`/admin/people/${id}`)).json().result).toMatchObject({
      fullName: formatted,
      locale: null,
    });
  });

  appTest("a language given again is the user's on the page", async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const { id } = await augusta(scim);
    await withoutDisplayNameAndLanguage(scim, id);
    const signedIn = await t.signIn({ id, username: 'ada@example.org', password });
    await scim.patch(`/Users/${id}`, { op: 'add', path: 'preferredLanguage', value: 'fr-CA' });
    expect((await t.call(`${API}/userinfo`, {}, signedIn)).json()).toMatchObject({ userLocale: 'fr_CA' });
  });

  appTest('a PUT keeps a language it does not name; null leaves none', async ({ startApp, expect }) => {
    const t = await startApp();
    const scim = await scimClient(t);
    const id = await scim.create({ ...ada, preferredLanguage: 'fr-CA' });
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
  });
});
