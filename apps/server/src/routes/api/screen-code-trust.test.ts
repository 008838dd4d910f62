import {
  PAGE_CALLS,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  REGISTRATION_COOKIE_NAME,
  REMEMBERED_DEVICE_COOKIE_NAME,
  pageCallKey,
  splitChannelValue,
} from '@dea/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { pageStartupAnswers } from '../../domain/page/page-startup-answers.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { consoleAgent } from '../../testing/console-agent.js';
import { appTest } from '../../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import type { SignedIn, TestApp, TestUser } from '../../testing/test-app.js';

const DAY = 24 * 3_600_000;
const UNTRUSTED = '203.0.113.7';

interface Answer {
  error: number;
  message: string;
  result: Record<string, unknown> | null;
}
const envelope = (response: LightMyRequestResponse) => response.json<Answer>();

/** A page call from `address`, with these cookies besides the session's. */
function pageCall(
  t: TestApp,
  path: string,
  body: unknown,
  signedIn: SignedIn,
  address: string,
  cookies: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const extra = Object.entries(cookies)
    .map(([name, value]) => `; ${name}=${value}`)
    .join('');
  return t.app.inject({
    method: 'POST',
    url: `${API}/${path}`,
    remoteAddress: address,
    headers: { ...signedIn.headers, cookie: `${signedIn.headers.cookie}${extra}` },
    payload: body as Record<string, unknown>,
  });
}

/** The person's group gets these "Channel Registration" options, checked as every door checks them. */
async function trustPolicy(t: TestApp, person: TestUser, options: Record<string, unknown>): Promise<void> {
  const group = await t.services.store.groups.findByName(`group-${person.username}`);
  if (group === undefined) throw new Error('no group of the person');
  await t.services.groupPolicies.setPolicy(group, POLICY_CATEGORY_CHANNEL_REGISTRATION, options, 'test');
}

/** Opens a registration session with a link of `dea user registration-link`; answers its cookies. */
async function openWithLink(
  t: TestApp,
  person: TestUser,
  signedIn: SignedIn,
  address = UNTRUSTED,
): Promise<LightMyRequestResponse> {
  const printed = await t.dea(['user', 'registration-link', person.username]);
  const link = /#link=([\w-]+)/.exec(printed.out)?.[1];
  const opened = await pageCall(t, 'registration/open', { link }, signedIn, address);
  expect(envelope(opened).error).toBe(0);
  return opened;
}

const deviceCookieOf = (response: LightMyRequestResponse) =>
  response.cookies.find((cookie) => cookie.name === REMEMBERED_DEVICE_COOKIE_NAME);

const createOnScreen = (t: TestApp, person: TestUser, signedIn: SignedIn, address: string, device?: string) =>
  pageCall(
    t,
    'tempPass/create',
    bodies.create(person.id),
    signedIn,
    address,
    device === undefined ? {} : { [REMEMBERED_DEVICE_COOKIE_NAME]: device },
  );

describe.each(DOOR_STORE_KINDS)('codes on screen only with a reason to trust, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'from an untrusted address no code is shown: the policy answers Channel, the channels are offered and a code goes to one',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({ channels: { email: 'robin@example.com' } });
      await trustPolicy(t, person, { screenCodeTrustedNetworks: ['10.20.0.0/16', '2001:db8:20::/48'] });
      const signedIn = await t.signIn(person);

      const refused = envelope(await createOnScreen(t, person, signedIn, UNTRUSTED));
      expect(refused).toMatchObject({ error: 3, result: null });
      expect(refused.message).toMatch(/trusted network/);
      expect(await t.services.store.codes.countActive(person.id, t.clock.now())).toBe(0);
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'code.screen_untrusted' }),
      ).toMatchObject([{ clientAddress: UNTRUSTED, details: { device: 'none' } }]);

      const policy = envelope(
        await pageCall(t, 'user/getPolicy', bodies.getPolicy(person.id), signedIn, UNTRUSTED),
      );
      expect(policy.result).toMatchObject({
        options: { enableECode: true, emergencyCodeDelivery: 'Channel' },
        screenCodeTrust: 'missing',
      });
      const channels = envelope(
        await pageCall(t, 'user/queryAvailableChannels', bodies.channels(person.id), signedIn, UNTRUSTED),
      );
      expect(channels.error).toBe(0);
      const reference = splitChannelValue(String(channels.result?.email)).reference;
      const sent = envelope(
        await pageCall(
          t,
          'tempPass/createAndSend',
          bodies.createAndSend(person.id, 'smtp', reference),
          signedIn,
          UNTRUSTED,
        ),
      );
      expect(sent).toMatchObject({ error: 0, result: { to: expect.stringMatching(/^r\*+@e\*+\.com$/) } });

      // The page's HTML carries the same answers.
      const user = (await t.services.store.users.findById(person.id))!;
      const startup = await pageStartupAnswers(t.services, {
        user,
        acceptLanguage: 'en',
        clientAddress: UNTRUSTED,
        deviceCookie: undefined,
      });
      expect(startup[pageCallKey(PAGE_CALLS.policy(person.id))]).toMatchObject({
        result: { options: { emergencyCodeDelivery: 'Channel' }, screenCodeTrust: 'missing' },
      });
      expect(startup[pageCallKey(PAGE_CALLS.availableChannels(person.id))]).toMatchObject({ error: 0 });
      // From the trusted range, by the address of the connection, the code is shown.
      expect(envelope(await createOnScreen(t, person, signedIn, '10.20.3.4')).error).toBe(0);
    },
  );

  appTest(
    'a registration session remembers the browser in an HTTP-only cookie, kept hashed, with which the code is shown',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 10 },
      });
      await trustPolicy(t, person, { screenCodeRememberedDeviceDays: 30 });
      const signedIn = await t.signIn(person);
      expect(envelope(await createOnScreen(t, person, signedIn, UNTRUSTED)).error).toBe(3);

      const opened = await openWithLink(t, person, signedIn);
      const cookie = deviceCookieOf(opened);
      // Secure when the page is (DEA_COOKIE_SECURE auto: this page is plain HTTP), as the session's.
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dea/' });
      expect(cookie!.secure).toBeFalsy();
      expect(cookie!.expires!.getTime()).toBe(t.clock.now() + 30 * DAY);
      const device = cookie!.value;
      // Stored hashed: the secret of the cookie is in no row.
      const [deviceId, secret] = device.split('.');
      const row = await t.services.store.rememberedDevices.find(deviceId!);
      expect(row).toMatchObject({ userId: person.id, forgottenAt: null });
      expect(row!.tokenHash).not.toContain(secret);
      expect(
        await t.services.store.audit.list({ userId: person.id, event: 'device.remembered' }),
      ).toMatchObject([{ details: { deviceId, method: 'link' } }]);

      expect(envelope(await createOnScreen(t, person, signedIn, UNTRUSTED, device)).error).toBe(0);
    },
  );

  appTest(
    'the person, the help desk (in scope) and dea user forget-devices forget the remembered devices, one function for all',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 10 },
      });
      await trustPolicy(t, person, { screenCodeRememberedDeviceDays: 7 });
      const signedIn = await t.signIn(person);
      const remembered = async () => deviceCookieOf(await openWithLink(t, person, signedIn))!.value;
      const shown = async (device: string) =>
        envelope(await createOnScreen(t, person, signedIn, UNTRUSTED, device)).error === 0;

      // The person, in a registration session.
      const first = await remembered();
      expect(await shown(first)).toBe(true);
      const withoutSession = envelope(
        await pageCall(t, 'registration/devices/forget', {}, signedIn, UNTRUSTED),
      );
      expect(withoutSession.error).toBe(3);
      const opened = await openWithLink(t, person, signedIn);
      const session = opened.cookies.find((cookie) => cookie.name === REGISTRATION_COOKIE_NAME)!.value;
      const forgot = await pageCall(t, 'registration/devices/forget', {}, signedIn, UNTRUSTED, {
        [REGISTRATION_COOKIE_NAME]: session,
      });
      expect(envelope(forgot)).toMatchObject({ error: 0, result: { forgotten: 2 } });
      expect(deviceCookieOf(forgot)?.value).toBe('');
      expect(await shown(first)).toBe(false);

      // The help desk.
      const second = await remembered();
      const agent = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk');
      const byAgent = (await agent.post(`/users/${person.id}/devices/forget`)).json<Answer>();
      expect(byAgent).toMatchObject({ error: 0, result: { count: 1 } });
      expect(await shown(second)).toBe(false);
      // An agent scoped to another group forgets nothing of this person.
      const elsewhere = await t.createUser();
      const scoped = await consoleAgent(t, '/dea/admin-api/helpdesk', 'helpdesk', true, [
        '--scope',
        `group-${elsewhere.username}`,
      ]);
      const outOfScope = await remembered();
      expect((await scoped.post(`/users/${person.id}/devices/forget`)).statusCode).toBe(404);
      expect(await shown(outOfScope)).toBe(true);
      expect((await agent.post(`/users/${person.id}/devices/forget`)).json<Answer>()).toMatchObject({
        result: { count: 1 },
      });

      // dea user forget-devices.
      const third = await remembered();
      const printed = await t.dea(['user', 'forget-devices', person.username]);
      expect(printed).toMatchObject({ code: 0, out: `Forgot 1 remembered device of ${person.username}.` });
      expect(await shown(third)).toBe(false);

      const forgotten = await t.services.store.audit.list({ userId: person.id, event: 'device.forgotten' });
      expect(forgotten.map((entry) => entry.actor).sort()).toEqual(
        [person.id, `console:${agent.username}`, `console:${agent.username}`, 'cli'].sort(),
      );
      const untrusted = await t.services.store.audit.list({
        userId: person.id,
        event: 'code.screen_untrusted',
      });
      expect(untrusted.map((entry) => entry.details?.device)).toEqual([
        'forgotten',
        'forgotten',
        'forgotten',
      ]);
    },
  );

  appTest(
    'the console shows a group’s options and sets them, checked as every door checks them',
    async ({ startApp }) => {
      const t = await startApp();
      const person = await t.createUser();
      const admin = await consoleAgent(t, '/dea/admin-api/admin', 'admin');
      type Groups = { result: { groups: { id: string; name: string; screenCodeTrust: unknown }[] } };
      const groupOf = async () =>
        (await admin.get('/groups'))
          .json<Groups>()
          .result.groups.find((group) => group.name === `group-${person.username}`)!;
      const group = await groupOf();
      expect(group.screenCodeTrust).toEqual({
        screenCodeTrustedNetworks: [],
        screenCodeRememberedDeviceDays: 0,
      });
      const set = (options: Record<string, unknown>) =>
        admin.post(`/groups/${group.id}/policy`, { category: POLICY_CATEGORY_CHANNEL_REGISTRATION, options });
      const refused = await set({ screenCodeTrustedNetworks: ['10.0.0.0/8', 'example.com'] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<Answer>().message).toMatch(/not one: "example.com"/);
      expect(
        (await set({ screenCodeTrustedNetworks: ['10.0.0.0/8'], screenCodeRememberedDeviceDays: 14 }))
          .statusCode,
      ).toBe(200);
      expect((await groupOf()).screenCodeTrust).toEqual({
        screenCodeTrustedNetworks: ['10.0.0.0/8'],
        screenCodeRememberedDeviceDays: 14,
      });
    },
  );
});
