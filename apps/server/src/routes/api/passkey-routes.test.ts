import { REGISTRATION_COOKIE_NAME } from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { API } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp, TestUser } from '../../testing/test-app.js';

const ORIGIN = 'http://localhost';
const HOST = { host: 'localhost' };

type Envelope = {
  error: number;
  message: string;
  result: (Record<string, unknown> & { challenge: string; rp: { id: string } }) | null;
};
const envelope = (response: LightMyRequestResponse) => response.json<Envelope>();
const registrationTokenOf = (response: LightMyRequestResponse): string | undefined =>
  response.cookies.find((cookie) => cookie.name === REGISTRATION_COOKIE_NAME)?.value;

/** The page's calls of one signed-in person, with the registration cookie once one is opened. */
async function page(t: TestApp, person: TestUser) {
  const signedIn: SignedIn = await t.signIn(person);
  let registration: string | undefined;
  const post = async (path: string, body: unknown = {}) => {
    const headers = {
      ...signedIn.headers,
      ...HOST,
      ...(registration !== undefined && {
        cookie: `${signedIn.headers.cookie}; ${REGISTRATION_COOKIE_NAME}=${registration}`,
      }),
    };
    return t.app.inject({ method: 'POST', url: `${API}/${path}`, headers, payload: body as object });
  };
  return {
    post,
    call: async (path: string, body: unknown = {}) => envelope(await post(path, body)),
    /** A registration session opened with a link of `dea user registration-link`. */
    async openWithLink() {
      const username = (await t.services.store.users.findById(person.id))!.username;
      const link = /#link=([\w-]+)/.exec((await t.dea(['user', 'registration-link', username])).out)?.[1];
      const opened = await post('registration/open', { link });
      expect(envelope(opened).error).toBe(0);
      registration = registrationTokenOf(opened);
    },
    /** Options, then the authenticator's new credential under that name. */
    async addPasskey(authenticator: SoftwareAuthenticator, name: string) {
      const options = envelope(await post('passkeys/options'));
      if (options.error !== 0 || options.result === null) return options;
      return envelope(
        await post('passkeys/add', { credential: authenticator.register(options.result, ORIGIN), name }),
      );
    },
    /** The passkey's answer to fresh sign-in options; keeps the registration cookie it opened. */
    async openWithPasskey(
      authenticator: SoftwareAuthenticator,
      how: Parameters<SoftwareAuthenticator['authenticate']>[2] = {},
    ) {
      const options = envelope(await post('registration/passkey/options'));
      if (options.error !== 0 || options.result === null) return options;
      const opened = await post('registration/passkey/open', {
        credential: authenticator.authenticate(options.result, ORIGIN, how),
      });
      registration = registrationTokenOf(opened) ?? registration;
      return envelope(opened);
    },
  };
}

describe.each(DOOR_STORE_KINDS)("people's own passkeys on %s", (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'without a registration session the calls answer error 3 naming the strong sign-in; without the password’s session, 403',
    async ({ startApp }) => {
      const t = await startApp();
      const pat = await page(t, await t.createUser());
      for (const path of ['passkeys/list', 'passkeys/options', 'registration/passkey/options']) {
        const answer = await pat.call(path);
        expect(answer, path).toMatchObject({ error: 3 });
        expect(answer.message, path).toMatch(/strong sign-in/);
      }
      expect((await t.call(`${API}/registration/passkey/options`, {})).statusCode).toBe(403);
    },
  );

  appTest(
    'a passkey added inside a registration session opens the next one; listed, renamed and removed',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const authenticator = new SoftwareAuthenticator();
      const first = await page(t, person);
      await first.openWithLink();
      const added = await first.addPasskey(authenticator, ' work laptop ');
      expect(added).toMatchObject({
        error: 0,
        result: { passkey: { name: 'work laptop', lastUsedAt: null } },
      });
      const id = (added.result as unknown as { passkey: { id: string } }).passkey.id;

      // Another day, with the password only: the passkey opens the registration.
      const later = await page(t, person);
      expect(await later.call('passkeys/list')).toMatchObject({ error: 3 });
      expect(await later.openWithPasskey(authenticator)).toMatchObject({ error: 0 });
      expect(await later.call('passkeys/list')).toMatchObject({
        error: 0,
        result: { passkeys: [{ id, name: 'work laptop', lastUsedAt: expect.any(String) }] },
      });
      expect(await later.call('passkeys/rename', { id, name: 'old laptop' })).toMatchObject({ error: 0 });
      expect(await later.call('passkeys/rename', { id: 'AAAA', name: 'x' })).toMatchObject({ error: 2 });
      const second = await later.addPasskey(new SoftwareAuthenticator(), 'phone');
      expect(second.error).toBe(0);
      // The same authenticator's credential again is excluded by the options; a second copy is refused.
      // Both were added at the test clock's one instant: the list's order between them is the ids'.
      const listed = (await later.call('passkeys/list')).result?.passkeys as { name: string }[];
      expect(listed.map((passkey) => passkey.name).sort()).toEqual(['old laptop', 'phone']);
      expect(await later.call('passkeys/remove', { id })).toMatchObject({ error: 0 });
      expect(await later.call('passkeys/remove', { id })).toMatchObject({ error: 2 });
      // The removed passkey opens nothing any more.
      const after = await page(t, person);
      expect(await after.openWithPasskey(authenticator, { credentialId: id })).toMatchObject({ error: 3 });
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'registration.opened' }))
          .map((entry) => entry.details.method)
          .reverse(),
      ).toEqual(['link', 'passkey']);
      expect(
        (await t.services.store.audit.list({ userId: person.id }))
          .map((entry) => entry.event)
          .filter((event) => event.startsWith('passkey.'))
          .reverse(),
      ).toEqual(['passkey.registered', 'passkey.renamed', 'passkey.registered', 'passkey.removed']);
    },
  );

  appTest(
    'the help desk and dea user forget-passkeys remove every passkey of a person',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const authenticator = new SoftwareAuthenticator();
      const pat = await page(t, person);
      await pat.openWithLink();
      expect((await pat.addPasskey(authenticator, 'one')).error).toBe(0);
      expect((await pat.addPasskey(new SoftwareAuthenticator(), 'two')).error).toBe(0);

      const agent = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk');
      const forgotten = (await agent.post(`/users/${person.id}/passkeys/forget`)).json<{
        error: number;
        result: { count: number };
      }>();
      expect(forgotten).toMatchObject({ error: 0, result: { count: 2 } });
      expect(await t.services.store.userPasskeys.listOfUser(person.id)).toEqual([]);
      expect(await pat.openWithPasskey(authenticator)).toMatchObject({ error: 3 });

      expect((await pat.addPasskey(authenticator, 'again')).error).toBe(0);
      const username = (await t.services.store.users.findById(person.id))!.username;
      const cli = await t.dea(['user', 'forget-passkeys', username]);
      expect(cli).toMatchObject({ code: 0, out: `Removed 1 passkey of ${username}.` });
      expect((await t.dea(['user', 'forget-passkeys', username])).out).toBe(`${username} had no passkeys.`);
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'passkey.forgotten' }))
          .map((entry) => [entry.actor, entry.details.count])
          .reverse(),
      ).toEqual([
        [`console:${agent.username}`, 2],
        ['cli', 1],
        ['cli', 0],
      ]);
    },
  );
});
