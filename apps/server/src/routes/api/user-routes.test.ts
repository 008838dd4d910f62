import {
  CHANNEL_KEYS,
  ChannelMap,
  Envelope,
  PolicyResult,
  UserGetResult,
  UserInfo,
  splitChannelValue,
  type ChannelKey,
} from '@dea/contract';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_ALPHABET } from '../../domain/codes/code-settings.js';
import { API, bodies } from '../../testing/api-bodies.js';
import { DOOR_STORE_KINDS } from '../../testing/stores.js';
import { createTestApp, type TestApp } from '../../testing/test-app.js';

const CHANNELS: Record<ChannelKey, string> = {
  mobile: '+49 170 5550112',
  personalMobile: '+49 151 5550134',
  email: 'chris.channel@example.com',
  personalEmail: 'chris@example.org',
  telephone: '+49 30 5550156',
  personalTelephone: '+49 89 5550178',
  twitter: '@chris_channel',
  personalTwitter: '@chrisc',
};

describe.each(DOOR_STORE_KINDS)('user calls on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  describe('POST userinfo', () => {
    it('answers who is signed in, without an envelope, lastLogin null on the first sign-in', async () => {
      const user = await t.createUser({ locale: 'de' });
      const session = await t.signIn(user);
      const response = await t.call(`${API}/userinfo`, {}, session);
      expect(response.statusCode).toBe(200);
      const body: unknown = response.json();
      expect(Value.Check(UserInfo, body)).toBe(true);
      expect(body).toEqual({
        fullName: `Test ${user.username}`,
        lastLogin: null,
        userId: user.id,
        userLocale: 'de',
      });
      expect(response.headers['cache-control']).toBe('no-store');
    });
  });

  describe('POST user/get', () => {
    it('answers only the fields asked for', async () => {
      const user = await t.createUser({ locale: 'fr' });
      const session = await t.signIn(user);
      const both = (await t.call(`${API}/user/get`, bodies.userGet(user.id), session)).json<unknown>();
      expect(Value.Check(Envelope(UserGetResult), both)).toBe(true);
      expect(both).toEqual({ error: 0, message: '', result: { id: user.id, userLocale: 'fr' } });

      const localeOnly = await t.call(`${API}/user/get`, bodies.userGet(user.id, ['userLocale']), session);
      expect(localeOnly.json()).toEqual({ error: 0, message: '', result: { userLocale: 'fr' } });
      const idOnly = await t.call(`${API}/user/get`, bodies.userGet(user.id, ['id']), session);
      expect(idOnly.json()).toEqual({ error: 0, message: '', result: { id: user.id } });
    });
  });

  describe('POST user/getPolicy', () => {
    it('answers the stored options with the documented defaults filled in', async () => {
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      const session = await t.signIn(user);
      const body = (
        await t.call(`${API}/user/getPolicy`, bodies.getPolicy(user.id), session)
      ).json<unknown>();
      expect(Value.Check(Envelope(PolicyResult), body)).toBe(true);
      expect(body).toEqual({
        error: 0,
        message: '',
        result: {
          options: {
            enableECode: true,
            emergencyCodeDelivery: 'Display',
            codeLength: 10,
            codeAlphabet: DEFAULT_CODE_ALPHABET,
            codeValidityMinutes: 15,
            codeUses: 1,
            maxUnusedCodes: 5,
          },
        },
      });
    });

    it('answers codes disabled for a category the user has no policy for', async () => {
      const user = await t.createUser();
      const session = await t.signIn(user);
      const body = await t.call(
        `${API}/user/getPolicy`,
        bodies.getPolicy(user.id, 'Other Category'),
        session,
      );
      expect(body.json()).toMatchObject({ error: 0, result: { options: { enableECode: false } } });
    });
  });

  describe('POST user/queryAvailableChannels', () => {
    it("answers 'masked,reference' for every channel and never a full number or address", async () => {
      const user = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
        channels: CHANNELS,
      });
      const session = await t.signIn(user);
      const response = await t.call(`${API}/user/queryAvailableChannels`, bodies.channels(user.id), session);
      const body = response.json<{ error: number; result: Record<string, string> }>();
      expect(Value.Check(Envelope(ChannelMap), body)).toBe(true);
      expect(body.error).toBe(0);
      expect(Object.keys(body.result).sort()).toEqual([...CHANNEL_KEYS].sort());

      const stored = await t.services.store.channels.listOfUser(user.id);
      for (const key of CHANNEL_KEYS) {
        const { masked, reference } = splitChannelValue(body.result[key] ?? '');
        expect(reference).toBe(stored.find((channel) => channel.key === key)?.id);
        expect(masked).toContain('***');
      }
      expect(splitChannelValue(body.result.mobile ?? '').masked).toBe('+49 *** ***12');
      expect(splitChannelValue(body.result.email ?? '').masked).toBe('c***@e***.com');
      expect(splitChannelValue(body.result.twitter ?? '').masked).toBe('@ch***');

      for (const address of Object.values(CHANNELS)) {
        expect(response.body).not.toContain(address);
        // Not even the number without spaces, nor the local part or the domain of an address.
        expect(response.body).not.toContain(address.replace(/\s/g, ''));
        expect(response.body).not.toContain(address.slice(-5));
      }
      for (const part of ['chris.channel', 'example.com', 'example.org', 'chris_channel', 'chrisc']) {
        expect(response.body).not.toContain(part);
      }
    });

    it('answers an empty map for a user without channels', async () => {
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Channel' } });
      const session = await t.signIn(user);
      const response = await t.call(`${API}/user/queryAvailableChannels`, bodies.channels(user.id), session);
      expect(response.json()).toEqual({ error: 0, message: '', result: {} });
    });

    it('refuses a user whose codes are shown on screen or disabled (error 3)', async () => {
      for (const policy of [
        { enableECode: true, emergencyCodeDelivery: 'Display' },
        { enableECode: false, emergencyCodeDelivery: 'Channel' },
      ]) {
        const user = await t.createUser({ policy, channels: { mobile: '+49 170 5550112' } });
        const session = await t.signIn(user);
        const response = await t.call(
          `${API}/user/queryAvailableChannels`,
          bodies.channels(user.id),
          session,
        );
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject({ error: 3, result: null });
        expect(response.body).not.toContain('5550112');
      }
    });
  });
});
