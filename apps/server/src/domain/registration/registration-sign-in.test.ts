import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { composedDomain } from '../../testing/composed-domain.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const CLIENT = '198.51.100.7';
const refused = { textKey: 'error.registrationSignInNeeded' };

/** The domain over the test's store, composed as the server composes it, on a clock at T0. */
async function domainOn(store: Store) {
  const { services, clock } = await composedDomain(store, {}, T0);

  async function newUser(channels: Record<string, string> = {}): Promise<User> {
    const id = newId(T0);
    await store.users.create({
      id,
      username: usernameOrThrow(`link-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Lee Link',
      locale: 'en',
      createdAt: T0,
    });
    for (const [key, address] of Object.entries(channels))
      await store.channels.set({
        id: `${key}-${id}`,
        userId: id,
        key: key as 'email',
        address,
        createdAt: T0,
      });
    return (await store.users.findById(id))!;
  }

  const tokenOf = (url: string): string => /#link=([\w-]+)/.exec(url)![1]!;
  const opens = (user: User, link: string) =>
    services.registrationSignIn.openWithLink({ user, clientAddress: CLIENT, link });
  const openedWithLink = async (user: User) =>
    opens(user, tokenOf((await services.registrationSignIn.issueLink(user, 'cli')).url));

  return { services, clock, newUser, tokenOf, opens, openedWithLink };
}

describe.each(STORE_KINDS)('registration sessions and links, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a newer registration link ends the older ones, also when several are made at once',
    async ({ testStore: { store }, expect }) => {
      const d = await domainOn(store);
      const user = await d.newUser();
      const older = await d.services.registrationSignIn.issueLink(user, 'cli');
      const newer = await d.services.registrationSignIn.issueLink(user, 'console:desk');
      await expect(d.opens(user, d.tokenOf(older.url))).rejects.toMatchObject(refused);
      await expect(d.opens(user, d.tokenOf(newer.url))).resolves.toMatchObject({ token: expect.any(String) });
      expect(
        (await store.audit.list({ userId: user.id, event: 'registration.link_issued' }))
          .map((entry) => entry.details.earlierRevoked)
          .reverse(),
      ).toEqual([0, 1]);

      // Of five made at once, one opens: whichever was made last.
      const other = await d.newUser();
      const made = await Promise.all(
        Array.from({ length: 5 }, () => d.services.registrationSignIn.issueLink(other, 'cli')),
      );
      const outcomes = await Promise.allSettled(made.map((link) => d.opens(other, d.tokenOf(link.url))));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'signing out ends the registration sessions of the person',
    async ({ testStore: { store }, expect }) => {
      const d = await domainOn(store);
      const user = await d.newUser();
      const { sessionId } = await d.services.sessions.start(user.id, d.clock.now());
      const opened = await d.openedWithLink(user);
      await expect(d.services.registrationSignIn.require(user, opened.token)).resolves.toMatchObject({
        method: 'link',
      });
      expect(await d.services.sessions.end(sessionId, d.clock.now())).toBe(1);
      await expect(d.services.registrationSignIn.require(user, opened.token)).rejects.toMatchObject(refused);
    },
  );

  storeTest.concurrent(
    'a challenge sent before the sign-out opens nothing after it',
    async ({ testStore: { store }, expect }) => {
      const d = await domainOn(store);
      const dee = await d.newUser({ email: 'dee@example.com' });
      const deeSession = await d.services.sessions.start(dee.id, d.clock.now());
      const challenge = await d.services.registrationSignIn.challenge({
        user: dee,
        clientAddress: CLIENT,
        reference: `email-${dee.id}`,
      });
      await d.services.sessions.end(deeSession.sessionId, d.clock.now());
      await expect(
        d.services.registrationSignIn.openWithCode({
          user: dee,
          clientAddress: CLIENT,
          challengeId: challenge.challengeId,
          code: '00000000',
        }),
      ).rejects.toMatchObject(refused);
      expect(
        (await store.audit.list({ userId: dee.id, event: 'registration.refused' }))[0]?.details,
      ).toMatchObject({ reason: 'expired' });
    },
  );

  storeTest.concurrent(
    "a new password, a disabled user and the operator's sign-out end the registration sessions",
    async ({ testStore: { store }, expect }) => {
      const d = await domainOn(store);
      const people = d.services.people;
      const by = { door: 'local', actor: 'cli' } as const;
      for (const [event, end] of [
        ['user.password_set', (user: User) => people.setPassword(by, user.id, user.passwordHash)],
        ['user.signed_out', (user: User) => people.endSessions(by, user.id)],
        ['user.disabled', (user: User) => people.disable(by, user.id)],
      ] as const) {
        const user = await d.newUser();
        const opened = await d.openedWithLink(user);
        await end(user);
        await expect(d.services.registrationSignIn.require(user, opened.token), event).rejects.toMatchObject(
          refused,
        );
        expect((await store.audit.list({ userId: user.id, event }))[0]?.details, event).toMatchObject({
          registrationSessionsEnded: 1,
        });
      }
    },
  );
});
