import type { ChannelKey } from '@dea/contract';
import { describe } from 'vitest';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { storeTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { Store, User } from '../../store/store.js';
import { allowAddresses } from '../channels/channel-proof.js';
import {
  type Domain,
  domainOn as domainWith,
  outbox,
  setRegistrationPolicy as registrationPolicy,
  userOf,
} from '../../testing/channel-proof-domain.js';
import type { OpenedRegistration } from './registration-sign-in.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const PERSON_ADDRESS = '198.51.100.7';
const ATTACKER_ADDRESS = '203.0.113.66';
const RP = { origin: 'http://localhost', rpId: 'localhost' };

async function lastTo(t: Domain, userId: string, recipient: string) {
  const sent = (await outbox(t, userId)).filter((message) => message.recipient === recipient).at(-1);
  if (sent === undefined) throw new Error(`nothing sent to ${recipient}`);
  return sent.text;
}

/** Someone signed in with the person's password, from an address. */
const signedIn = (user: User, clientAddress: string) => ({ user, clientAddress, actor: user.id });

/** A registration session opened with a one-time link the help desk made. */
async function openWithLink(t: Domain, user: User, clientAddress: string): Promise<OpenedRegistration> {
  const { url } = await t.services.registrationSignIn.issueLink(user, 'console:desk');
  const link = /#link=([\w-]+)/.exec(url)![1]!;
  return t.services.registrationSignIn.openWithLink({ ...signedIn(user, clientAddress), link });
}

async function addPasskey(
  t: Domain,
  user: User,
  clientAddress: string,
  token: string,
  authenticator: SoftwareAuthenticator,
) {
  const person = signedIn(user, clientAddress);
  const options = await t.services.userPasskeys.registrationOptions(person, token, RP);
  const credential = authenticator.register(options, RP.origin);
  return t.services.userPasskeys.add({ ...person, response: credential, name: 'mine' }, token, RP);
}

async function openWithPasskey(
  t: Domain,
  user: User,
  clientAddress: string,
  authenticator: SoftwareAuthenticator,
): Promise<OpenedRegistration> {
  const person = signedIn(user, clientAddress);
  const options = await t.services.userPasskeys.signInOptions(person, RP);
  return t.services.userPasskeys.openWithPasskey(
    { ...person, response: authenticator.authenticate(options, RP.origin) },
    RP,
  );
}

/** Proves an address for the key, as the channels page does, inside an open registration session. */
async function register(t: Domain, user: User, clientAddress: string, key: ChannelKey, address: string) {
  const request = { ...signedIn(user, clientAddress), origin: 'owner' as const };
  const { proofId } = await t.services.channelProofs.start({ ...request, key, address });
  const code = /confirmation code is (\d{8})/.exec(await lastTo(t, user.id, address.replace(/\s/g, '')))![1]!;
  return t.services.channelProofs.prove({ ...request, proofId, code });
}

const domainOn = (store: Store) => domainWith(store, openOutboxMessage);

describe.each(STORE_KINDS)('"this was not me" takes the attacker out, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the undo ends every registration session, removes the passkeys, devices, channels and proofs added since, blocks the addresses until the help desk allows them, and says the password is known',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({
        policy: { enableECode: true, emergencyCodeDelivery: 'Display', maxUnusedCodes: 10 },
        channels: { email: 'ann@example.com' },
      });
      await registrationPolicy(t, person, {
        screenCodeRememberedDeviceDays: 30,
        registrationCoolingHours: 0,
        registrationMaxChannels: 5,
      });
      const user = await userOf(t, person);
      const devices = t.services.rememberedDevices;

      // The person's own, a day before: a passkey and a remembered device, which stay.
      const own = await openWithLink(t, user, PERSON_ADDRESS);
      const ownKey = new SoftwareAuthenticator();
      const ownPasskey = await addPasskey(t, user, PERSON_ADDRESS, own.token, ownKey);
      t.clock.advance(DAY);

      // The attacker, with the password and a registration link: a passkey and a device in the
      // first session; twenty minutes later, when it has expired, the passkey opens a second, in
      // which he registers a number, then an address, and starts a third.
      const first = await openWithLink(t, user, ATTACKER_ADDRESS);
      const stolenKey = new SoftwareAuthenticator();
      const attackerPasskey = await addPasskey(t, user, ATTACKER_ADDRESS, first.token, stolenKey);
      t.clock.advance(20 * MINUTE);
      await expect(t.services.registrationSignIn.require(user, first.token)).rejects.toMatchObject({
        textKey: 'error.registrationSignInNeeded',
      });
      const second = await openWithPasskey(t, user, ATTACKER_ADDRESS, stolenKey);
      await register(t, user, ATTACKER_ADDRESS, 'personalMobile', '+49 170 5550199');
      t.clock.advance(MINUTE);
      await register(t, user, ATTACKER_ADDRESS, 'personalEmail', 'evil@example.org');
      await t.services.channelProofs.start({
        ...signedIn(user, ATTACKER_ADDRESS),
        origin: 'owner',
        key: 'personalTwitter',
        address: '@evil',
      });
      await t.services.store.sessions.create({
        idHash: `attacker-${kind}`,
        userId: user.id,
        createdAt: t.clock.now(),
        lastSeenAt: t.clock.now(),
      });
      expect(await devices.check(user.id, first.device!.token)).toMatchObject({ held: true });
      expect(await devices.check(user.id, second.device!.token)).toMatchObject({ held: true });

      // The person reads the notice of the number at their address and undoes it.
      const notice = (await outbox(t, user.id)).find(
        (message) => message.recipient === 'ann@example.com' && message.text.includes('#undo='),
      );
      const undo = /#undo=([\w-]+)/.exec(notice?.text ?? '')![1]!;
      t.clock.advance(MINUTE);
      expect(await t.services.channelProofs.undo(undo, PERSON_ADDRESS)).toEqual({
        removed: true,
        passwordChange: 'help-desk',
      });

      // No registration session of his works, and his passkey opens none.
      for (const opened of [first, second])
        await expect(t.services.registrationSignIn.require(user, opened.token)).rejects.toMatchObject({
          textKey: 'error.registrationSignInNeeded',
        });
      await expect(openWithPasskey(t, user, ATTACKER_ADDRESS, stolenKey)).rejects.toMatchObject({
        textKey: 'error.registrationSignInNeeded',
      });
      expect(
        (await t.services.store.userPasskeys.listOfUser(user.id)).map((passkey) => passkey.credentialId),
      ).toEqual([ownPasskey.id]);
      // His devices are forgotten; the person's own stays.
      expect(await devices.check(user.id, first.device!.token)).toEqual({
        held: false,
        refusal: 'forgotten',
      });
      expect(await devices.check(user.id, second.device!.token)).toEqual({
        held: false,
        refusal: 'forgotten',
      });
      expect(await devices.check(user.id, own.device!.token)).toMatchObject({ held: true });
      // His channels and proofs are gone, the person's source channel stays; no session is open.
      expect((await t.services.store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      expect(await t.services.store.channelProofs.listOfUser(user.id)).toEqual([]);
      expect(await t.services.store.sessions.listOpenOfUser(user.id)).toEqual([]);

      // The addresses removed are blocked for the person, under any key of their type.
      expect(
        (await t.services.store.channelProofs.listBlocked(user.id)).map((blocked) => [
          blocked.type,
          blocked.address,
        ]),
      ).toEqual(
        expect.arrayContaining([
          ['sms', '+491705550199'],
          ['smtp', 'evil@example.org'],
        ]),
      );
      const again = await openWithLink(t, user, ATTACKER_ADDRESS);
      expect(await t.services.registrationSignIn.require(user, again.token)).toBeDefined();
      for (const [key, address] of [
        ['personalMobile', '+49 170 5550199'],
        ['mobile', '+491705550199'],
        ['personalEmail', 'Evil@example.org'],
      ] as const)
        await expect(
          t.services.channelProofs.start({
            ...signedIn(user, ATTACKER_ADDRESS),
            origin: 'owner',
            key,
            address,
          }),
        ).rejects.toMatchObject({ textKey: 'error.channelAddressBlocked' });

      // The help desk's alert says what was taken back and that the password is known.
      const [undone] = await t.services.store.audit.list({
        userId: user.id,
        event: 'channel.registration_undone',
      });
      expect(undone?.details).toMatchObject({
        removed: true,
        passwordKnown: true,
        passwordChange: 'help-desk',
        passkeysRemoved: [attackerPasskey.id],
        devicesForgotten: 2,
        proofsEnded: 1,
        sessionsEnded: 1,
        channelsRemoved: expect.arrayContaining([
          expect.objectContaining({ key: 'personalMobile' }),
          expect.objectContaining({ key: 'personalEmail' }),
        ]),
      });
      expect(undone?.details.registrationSessionsEnded).toBeGreaterThanOrEqual(1);
      expect(Date.parse(String(undone?.details.since))).toBeLessThanOrEqual(t.clock.now() - 20 * MINUTE);

      // Until the help desk allows it again.
      const allowed = await allowAddresses(t.services, user, { actor: 'console:desk', clientAddress: null });
      expect(allowed).toHaveLength(2);
      expect(await t.services.store.channelProofs.listBlocked(user.id)).toEqual([]);
      await t.services.channelProofs.start({
        ...signedIn(user, PERSON_ADDRESS),
        origin: 'owner',
        key: 'personalMobile',
        address: '+49 170 5550199',
      });
      expect(
        await t.services.store.audit.list({ userId: user.id, event: 'channel.addresses_allowed' }),
      ).toMatchObject([{ actor: 'console:desk', details: { count: 2 } }]);
    },
  );

  storeTest.concurrent(
    'a proof that ends while the undo runs leaves no channel, whichever comes first; an unused registration link ends with the undo',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ channels: { email: 'dot@example.com' } });
      await registrationPolicy(t, person, { registrationCoolingHours: 0 });
      const user = await userOf(t, person);
      await openWithLink(t, user, ATTACKER_ADDRESS);
      await register(t, user, ATTACKER_ADDRESS, 'personalMobile', '+49 170 5550188');
      const undo = /#undo=([\w-]+)/.exec(await lastTo(t, user.id, 'dot@example.com'))![1]!;
      const request = { ...signedIn(user, ATTACKER_ADDRESS), origin: 'owner' as const };
      const { proofId } = await t.services.channelProofs.start({
        ...request,
        key: 'personalEmail',
        address: 'dot.evil@example.org',
      });
      const code = /confirmation code is (\d{8})/.exec(await lastTo(t, user.id, 'dot.evil@example.org'))![1]!;
      const waiting = await t.services.registrationSignIn.issueLink(user, 'console:desk');
      await Promise.allSettled([
        t.services.channelProofs.undo(undo, PERSON_ADDRESS),
        t.services.channelProofs.prove({ ...request, proofId, code }),
      ]);
      expect((await t.services.store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      await expect(
        t.services.registrationSignIn.openWithLink({
          ...signedIn(user, ATTACKER_ADDRESS),
          link: /#link=([\w-]+)/.exec(waiting.url)![1]!,
        }),
      ).rejects.toMatchObject({ textKey: 'error.registrationSignInNeeded' });
    },
  );

  storeTest.concurrent(
    'a channel registered earlier that opened the registration of the undone one is taken back with it',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ channels: { email: 'eve@example.com' } });
      await registrationPolicy(t, person, { registrationCoolingHours: 0 });
      const user = await userOf(t, person);
      // A first session registers his address; an hour later a code to it opens a second one.
      await openWithLink(t, user, ATTACKER_ADDRESS);
      await register(t, user, ATTACKER_ADDRESS, 'personalEmail', 'eve.evil@example.org');
      t.clock.advance(60 * MINUTE);
      const reference = (await t.services.store.channels.listOfUser(user.id)).find(
        (channel) => channel.key === 'personalEmail',
      )!.id;
      const { challengeId } = await t.services.registrationSignIn.challenge({
        ...signedIn(user, ATTACKER_ADDRESS),
        reference,
      });
      const code = /register channels is (\d{8})/.exec(await lastTo(t, user.id, 'eve.evil@example.org'))![1]!;
      await t.services.registrationSignIn.openWithCode({
        ...signedIn(user, ATTACKER_ADDRESS),
        challengeId,
        code,
      });
      await register(t, user, ATTACKER_ADDRESS, 'personalMobile', '+49 170 5550166');
      // The person undoes the number: the address that opened its registration goes too.
      const notices = (await outbox(t, user.id)).filter(
        (message) => message.recipient === 'eve@example.com' && message.text.includes('#undo='),
      );
      const undo = /#undo=([\w-]+)/.exec(notices.at(-1)!.text)![1]!;
      await t.services.channelProofs.undo(undo, PERSON_ADDRESS);
      expect((await t.services.store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      expect(
        (await t.services.store.channelProofs.listBlocked(user.id)).map((blocked) => blocked.address).sort(),
      ).toEqual(['+491705550166', 'eve.evil@example.org']);
    },
  );

  storeTest.concurrent(
    'an address blocked while its proof was under way is refused as the proof ends',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const user = await userOf(t, await t.createUser({ channels: { email: 'bo@example.com' } }));
      const request = { ...signedIn(user, ATTACKER_ADDRESS), origin: 'owner' as const };
      const { proofId } = await t.services.channelProofs.start({
        ...request,
        key: 'personalEmail',
        address: 'bo.evil@example.org',
      });
      const code = /confirmation code is (\d{8})/.exec(await lastTo(t, user.id, 'bo.evil@example.org'))![1]!;
      await t.services.store.channelProofs.block([
        {
          userId: user.id,
          type: 'smtp',
          address: 'bo.evil@example.org',
          blockedAt: t.clock.now(),
          blockedBy: 'undo-link',
        },
      ]);
      await expect(t.services.channelProofs.prove({ ...request, proofId, code })).rejects.toMatchObject({
        textKey: 'error.channelAddressBlocked',
      });
      expect((await t.services.store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual([
        'email',
      ]);
      expect(
        (await t.services.store.audit.list({ userId: user.id, event: 'channel.proof_refused' }))[0]?.details,
      ).toMatchObject({ reason: 'address-blocked', proofId });
    },
  );

  storeTest.concurrent(
    "a directory person's undo says the password is changed the organisation's way",
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ channels: { email: 'cy@example.com' } });
      await t.services.store.users.update(person.id, { source: 'ldap', updatedAt: t.clock.now() });
      const user = await userOf(t, person);
      await openWithLink(t, user, ATTACKER_ADDRESS);
      await register(t, user, ATTACKER_ADDRESS, 'personalMobile', '+49 170 5550177');
      const undo = /#undo=([\w-]+)/.exec(await lastTo(t, user.id, 'cy@example.com'))![1]!;
      expect(await t.services.channelProofs.undo(undo, PERSON_ADDRESS)).toEqual({
        removed: true,
        passwordChange: 'organisation',
      });
    },
  );

  storeTest.concurrent(
    'a sign-in checked before the undo opens nothing after it: its registration session and remembered device end',
    async ({ testStore: { store }, expect }) => {
      const t = await domainOn(store);
      const person = await t.createUser({ channels: { email: 'una@example.com' } });
      await registrationPolicy(t, person, { screenCodeRememberedDeviceDays: 30 });
      const user = await userOf(t, person);
      await openWithLink(t, user, ATTACKER_ADDRESS);
      await register(t, user, ATTACKER_ADDRESS, 'personalMobile', '+49 170 5550177');
      const notice = (await outbox(t, user.id)).filter(
        (message) => message.recipient === 'una@example.com' && message.text.includes('#undo='),
      );
      const undo = /#undo=([\w-]+)/.exec(notice.at(-1)!.text)![1]!;
      // The attacker's next sign-in is checked; the person undoes; then it would open.
      const checkedAt = t.services.now();
      t.clock.advance(1);
      await t.services.channelProofs.undo(undo, PERSON_ADDRESS);
      const late = await t.services.registrationSignIn
        .openAfter(signedIn(user, ATTACKER_ADDRESS), 'link', {}, checkedAt)
        .catch((error: unknown) => error);
      expect(late).toBeInstanceOf(Error);
      // None is open a moment later (the clock of the test stands still: ended ones end at now).
      expect(
        await t.services.store.registration.earliestOpenAt(user.id, t.services.now() + 1),
      ).toBeUndefined();
      expect(await t.services.store.rememberedDevices.forgetSince(user.id, checkedAt, t.services.now())).toBe(
        0,
      );
      const refused = await t.services.store.audit.list({ userId: user.id, event: 'registration.refused' });
      expect(refused.map((entry) => entry.details?.reason)).toContain('undone-meanwhile');
    },
  );
});
