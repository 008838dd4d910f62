import {
  PASSWORD_LINK_FRAGMENT,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  REGISTRATION_COOKIE_NAME,
  REMEMBERED_DEVICE_COOKIE_NAME,
} from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp, TestUser } from '../../testing/test-app.js';

const ORIGIN = 'http://localhost';
const HOST = { host: 'localhost' };
const UNTRUSTED = '203.0.113.66';
const PERSON = '198.51.100.7';

interface Envelope {
  error: number;
  message: string;
  result: (Record<string, unknown> & { challenge: string; rp: { id: string } }) | null;
}
const envelope = (response: LightMyRequestResponse) => response.json<Envelope>();
const cookieOf = (response: LightMyRequestResponse, name: string) =>
  response.cookies.find((cookie) => cookie.name === name)?.value;

/** Someone's browser signed in with the person's password, from an address, keeping its cookies. */
async function browser(t: TestApp, person: TestUser, address: string) {
  let signedIn: SignedIn = await t.signIn(person);
  const cookies: Record<string, string> = {};
  const post = (path: string, body: unknown = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${API}/${path}`,
      remoteAddress: address,
      headers: {
        ...signedIn.headers,
        ...HOST,
        cookie: [
          signedIn.headers.cookie,
          ...Object.entries(cookies).map(([name, value]) => `${name}=${value}`),
        ].join('; '),
      },
      payload: body as object,
    });
  const keep = (response: LightMyRequestResponse) => {
    for (const name of [REGISTRATION_COOKIE_NAME, REMEMBERED_DEVICE_COOKIE_NAME]) {
      const value = cookieOf(response, name);
      if (value !== undefined) cookies[name] = value;
    }
    return envelope(response);
  };
  return {
    cookies,
    call: async (path: string, body: unknown = {}) => keep(await post(path, body)),
    /** The page's own session cookie. */
    sessionCookie: () => signedIn.headers.cookie ?? '',
    async signInAgain(password = person.password) {
      signedIn = await t.signIn({ ...person, password });
    },
    async openWithLink() {
      const link = /#link=([\w-]+)/.exec(
        (await t.dea(['user', 'registration-link', person.username])).out,
      )?.[1];
      return keep(await post('registration/open', { link }));
    },
    async addPasskey(authenticator: SoftwareAuthenticator) {
      const options = envelope(await post('passkeys/options'));
      if (options.error !== 0 || options.result === null) return options;
      return envelope(
        await post('passkeys/add', {
          credential: authenticator.register(options.result, ORIGIN),
          name: 'mine',
        }),
      );
    },
    async openWithPasskey(authenticator: SoftwareAuthenticator) {
      const options = envelope(await post('registration/passkey/options'));
      if (options.error !== 0 || options.result === null) return options;
      return keep(
        await post('registration/passkey/open', {
          credential: authenticator.authenticate(options.result, ORIGIN),
        }),
      );
    },
    async register(key: string, address: string, recipient: string) {
      const added = keep(await post('channels/add', { key, address }));
      if (added.error !== 0) return added;
      const code = /confirmation code is (\d{8})/.exec(await lastTo(t, person.id, recipient))![1];
      return keep(await post('channels/prove', { proofId: added.result!.proofId, code }));
    },
  };
}

async function lastTo(t: TestApp, userId: string, recipient: string): Promise<string> {
  const messages = (await t.services.store.outbox.list(1000, userId))
    .reverse()
    .map((message) => openOutboxMessage([t.services.keys.seal], message));
  return messages.filter((message) => message.recipient === recipient).at(-1)?.text ?? '';
}

describe.each(DOOR_STORE_KINDS)('"this was not me" over HTTP, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'the attack end to end: after the undo his registration, passkey, number and remembered device are worth nothing, until the help desk allows the number again',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 10 },
        channels: { email: 'ann@example.com' },
      });
      const group = (await t.services.store.groups.listOfUser(person.id))[0]!;
      await t.services.groupPolicies.setPolicy(
        group,
        POLICY_CATEGORY_CHANNEL_REGISTRATION,
        { screenCodeRememberedDeviceDays: 30, registrationCoolingHours: 0 },
        'test',
      );

      // The attacker has the password and, once, a strong sign-in: he keeps a passkey, a remembered
      // device and a number of his own.
      const attacker = await browser(t, person, UNTRUSTED);
      expect((await attacker.openWithLink()).error).toBe(0);
      const stolen = new SoftwareAuthenticator();
      expect((await attacker.addPasskey(stolen)).error).toBe(0);
      expect((await attacker.register('personalMobile', '+49 170 5550199', '+491705550199')).error).toBe(0);
      const device = attacker.cookies[REMEMBERED_DEVICE_COOKIE_NAME]!;
      expect((await attacker.call('tempPass/create', bodies.create(person.id))).error).toBe(0);

      // The person uses the link of the notice at their address.
      const undo = /#undo=([\w-]+)/.exec(await lastTo(t, person.id, 'ann@example.com'))![1];
      const undone = await t.app.inject({
        method: 'POST',
        url: `${API}/channels/undo`,
        remoteAddress: PERSON,
        payload: { token: undo },
      });
      expect(envelope(undone)).toMatchObject({
        error: 0,
        result: { done: true, passwordChange: 'help-desk' },
      });

      // His page session ended; signed in again with the password, his registration is gone.
      expect((await attacker.call('channels/list')).error).not.toBe(0);
      await attacker.signInAgain();
      expect(await attacker.call('channels/list')).toMatchObject({ error: 3 });
      // His passkey opens nothing.
      expect(await attacker.openWithPasskey(stolen)).toMatchObject({ error: 3 });
      // His remembered device shows no code from an untrusted network.
      expect(attacker.cookies[REMEMBERED_DEVICE_COOKIE_NAME]).toBe(device);
      expect(await attacker.call('tempPass/create', bodies.create(person.id))).toMatchObject({ error: 3 });
      // With a new strong sign-in, his number is refused, saying why.
      expect((await attacker.openWithLink()).error).toBe(0);
      const refused = await attacker.register('personalMobile', '+49 170 5550199', '+491705550199');
      expect(refused).toMatchObject({ error: 3 });
      expect(refused.message).toMatch(/cannot be registered again/);
      expect((await t.dea(['user', 'blocked-addresses', person.username])).out).toMatch(
        /^sms {2}\+491705550199 {2}blocked .* by undo-link$/,
      );

      // The help desk sees that the password is known, and allows the number again.
      const agent = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk');
      const viewed = async () =>
        (await agent.get(`/users/${person.id}`)).json<{
          result: {
            audit: { event: string; details: Record<string, unknown> }[];
            registrationUndone: {
              passwordKnownSince: string | null;
              blocked: { channel: string; to: string }[];
            };
          };
        }>().result;
      const view = await viewed();
      expect(
        view.audit.find((entry) => entry.event === 'channel.registration_undone')?.details,
      ).toMatchObject({
        passwordKnown: true,
        passwordChange: 'help-desk',
        blocked: [{ channel: 'sms' }],
      });
      expect(view.registrationUndone).toEqual({
        passwordKnownSince: expect.any(String),
        blocked: [{ channel: 'sms', to: expect.stringMatching(/99$/), blockedAt: expect.any(String) }],
      });
      expect((await agent.post(`/users/${person.id}/addresses/allow`)).json()).toMatchObject({
        error: 0,
        result: { count: 1 },
      });
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'channel.addresses_allowed' }))[0],
      ).toMatchObject({ actor: `console:${agent.username}` });
      expect(
        (await attacker.call('channels/add', { key: 'personalMobile', address: '+49 170 5550199' })).error,
      ).toBe(0);
      expect((await viewed()).registrationUndone.blocked).toEqual([]);
      // Once the person has a new password, the help desk is no longer told that it is known.
      const printed = (await t.dea(['user', 'password-link', person.username])).out;
      const token = new URL(printed.split('\n')[1]!).hash.slice(1 + PASSWORD_LINK_FRAGMENT.length);
      const reset = await t.app.inject({
        method: 'POST',
        url: '/login/api/password-link',
        payload: { token, password: 'a new horse battery' },
      });
      expect(reset.json()).toMatchObject({ error: 0 });
      expect((await viewed()).registrationUndone.passwordKnownSince).toBeNull();
    },
  );

  appTest(
    'signing out at /dea/logout and a new password through a password link end the registration session',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const page = await browser(t, person, PERSON);
      expect((await page.openWithLink()).error).toBe(0);
      expect((await page.call('channels/list')).error).toBe(0);
      const signedOut = await t.app.inject({
        method: 'GET',
        url: '/dea/logout',
        headers: { cookie: page.sessionCookie(), 'sec-fetch-site': 'same-origin' },
      });
      expect(signedOut.statusCode).toBe(302);
      // Signed in again with the password, the registration cookie the browser kept opens nothing.
      await page.signInAgain();
      expect(await page.call('channels/list')).toMatchObject({ error: 3 });
      expect(
        (await t.services.store.audit.list({ userId: person.id, event: 'signout' }))[0]?.details,
      ).toMatchObject({ registrationSessionsEnded: 1 });

      expect((await page.openWithLink()).error).toBe(0);
      const printed = (await t.dea(['user', 'password-link', person.username])).out;
      const link = new URL(printed.split('\n')[1]!).hash.slice(1 + PASSWORD_LINK_FRAGMENT.length);
      const reset = await t.app.inject({
        method: 'POST',
        url: '/login/api/password-link',
        payload: { token: link, password: 'another horse battery' },
      });
      expect(reset.json()).toMatchObject({ error: 0 });
      await page.signInAgain('another horse battery');
      expect(await page.call('channels/list')).toMatchObject({ error: 3 });
    },
  );

  appTest('dea user allow-addresses allows them as the help desk does, audited', async ({ startApp }) => {
    const t = await startApp();
    const person = await t.createUser();
    await t.services.store.channelProofs.block([
      {
        userId: person.id,
        type: 'smtp',
        address: 'x@example.org',
        blockedAt: t.clock.now(),
        blockedBy: 'undo-link',
      },
    ]);
    expect(await t.dea(['user', 'allow-addresses', person.username])).toMatchObject({
      code: 0,
      out: `Allowed 1 address of ${person.username} again: x***@e***.org.`,
    });
    expect(await t.dea(['user', 'allow-addresses', person.username])).toMatchObject({
      code: 0,
      out: `${person.username} had no blocked address.`,
    });
    expect(
      (await t.services.store.audit.list({ userId: person.id, event: 'channel.addresses_allowed' })).map(
        (entry) => [entry.actor, entry.details.count],
      ),
    ).toEqual([
      ['cli', 0],
      ['cli', 1],
    ]);
  });
});
