import { describe, expect } from 'vitest';
import { appTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { TestApp } from '../../testing/test-app.js';
import type { User } from '../../store/store.js';

const CLIENT = '198.51.100.7';

async function newUser(t: TestApp): Promise<User> {
  const created = await t.createUser();
  return (await t.services.store.users.findById(created.id))!;
}

const tokenOf = (url: string): string => /#link=([\w-]+)/.exec(url)![1]!;

const opens = (t: TestApp, user: User, link: string) =>
  t.services.registrationSignIn.openWithLink({ user, clientAddress: CLIENT, link });

const refused = { textKey: 'error.registrationSignInNeeded' };

describe.each(STORE_KINDS)('registration sessions and links, on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'a newer registration link ends the older ones, also when several are made at once',
    async ({ startApp }) => {
      const t = await startApp();
      const user = await newUser(t);
      const older = await t.services.registrationSignIn.issueLink(user, 'cli');
      const newer = await t.services.registrationSignIn.issueLink(user, 'console:desk');
      await expect(opens(t, user, tokenOf(older.url))).rejects.toMatchObject(refused);
      await expect(opens(t, user, tokenOf(newer.url))).resolves.toMatchObject({ token: expect.any(String) });
      expect(
        (await t.services.store.audit.list({ userId: user.id, event: 'registration.link_issued' }))
          .map((entry) => entry.details.earlierRevoked)
          .reverse(),
      ).toEqual([0, 1]);

      // Of five made at once, one opens: whichever was made last.
      const other = await newUser(t);
      const made = await Promise.all(
        Array.from({ length: 5 }, () => t.services.registrationSignIn.issueLink(other, 'cli')),
      );
      const outcomes = await Promise.allSettled(made.map((link) => opens(t, other, tokenOf(link.url))));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    },
  );

  appTest('signing out ends the registration sessions of the person', async ({ startApp }) => {
    const t = await startApp();
    const user = await newUser(t);
    const { sessionId } = await t.services.sessions.start(user.id, t.clock.now());
    const { url } = await t.services.registrationSignIn.issueLink(user, 'cli');
    const opened = await opens(t, user, tokenOf(url));
    await expect(t.services.registrationSignIn.require(user, opened.token)).resolves.toMatchObject({
      method: 'link',
    });
    expect(await t.services.sessions.end(sessionId, t.clock.now())).toBe(1);
    await expect(t.services.registrationSignIn.require(user, opened.token)).rejects.toMatchObject(refused);
    // A challenge sent before the sign-out opens nothing after it either.
    const again = await t.services.sessions.start(user.id, t.clock.now());
    const withChannel = await t.createUser({ channels: { email: 'dee@example.com' } });
    const dee = (await t.services.store.users.findById(withChannel.id))!;
    await t.services.store.channels.setProven({
      id: `proven-${kind}`,
      userId: dee.id,
      key: 'personalEmail',
      address: 'dee.private@example.org',
      at: t.clock.now() - 30 * 24 * 3_600_000,
    });
    const deeSession = await t.services.sessions.start(dee.id, t.clock.now());
    const challenge = await t.services.registrationSignIn.challenge({
      user: dee,
      clientAddress: CLIENT,
      reference: `proven-${kind}`,
    });
    await t.services.sessions.end(deeSession.sessionId, t.clock.now());
    await expect(
      t.services.registrationSignIn.openWithCode({
        user: dee,
        clientAddress: CLIENT,
        challengeId: challenge.challengeId,
        code: '00000000',
      }),
    ).rejects.toMatchObject(refused);
    expect(
      (await t.services.store.audit.list({ userId: dee.id, event: 'registration.refused' }))[0]?.details,
    ).toMatchObject({ reason: 'expired' });
    await t.services.sessions.end(again.sessionId, t.clock.now());
  });

  appTest(
    "a new password, a disabled user and the operator's sign-out end the registration sessions",
    async ({ startApp }) => {
      const t = await startApp();
      const people = t.services.people;
      const by = { door: 'local', actor: 'cli' } as const;
      for (const [event, end] of [
        ['user.password_set', (user: User) => people.setPassword(by, user.id, user.passwordHash)],
        ['user.signed_out', (user: User) => people.endSessions(by, user.id)],
        ['user.disabled', (user: User) => people.disable(by, user.id)],
      ] as const) {
        const user = await newUser(t);
        const opened = await opens(
          t,
          user,
          tokenOf((await t.services.registrationSignIn.issueLink(user, 'cli')).url),
        );
        await end(user);
        await expect(t.services.registrationSignIn.require(user, opened.token), event).rejects.toMatchObject(
          refused,
        );
        expect(
          (await t.services.store.audit.list({ userId: user.id, event }))[0]?.details,
          event,
        ).toMatchObject({ registrationSessionsEnded: 1 });
      }
    },
  );
});
