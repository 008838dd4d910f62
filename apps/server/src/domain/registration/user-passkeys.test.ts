import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import type { Store, User } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { composedDomain } from '../../testing/composed-domain.js';
import { forgetUserPasskeys, MAX_USER_PASSKEYS, PASSKEY_CHALLENGE_MS } from './user-passkeys.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const CLIENT = '198.51.100.7';
const RP = { origin: 'http://localhost', rpId: 'localhost' };
const SIGN_IN_NEEDED = { errorNumber: 3, textKey: 'error.registrationSignInNeeded' };

/**
 * The passkeys' use case over the test's store, composed as the server composes it, on a clock the
 * test moves; `person` makes someone signed in with their password, `registering` opens their
 * registration session with a one-time link.
 */
async function passkeysOn(store: Store) {
  const { services, clock } = await composedDomain(store, {}, T0);
  const passkeys = services.userPasskeys;

  async function person(): Promise<{ user: User; clientAddress: string }> {
    const id = newId(clock.now());
    await store.users.create({
      id,
      username: usernameOrThrow(`keys-${id.slice(-10).toLowerCase()}`),
      passwordHash: 'hash',
      fullName: 'Pat Passkey',
      locale: 'en',
      createdAt: clock.now(),
    });
    return { user: (await store.users.findById(id))!, clientAddress: CLIENT };
  }

  async function registering(signedIn: { user: User; clientAddress: string }): Promise<string> {
    const { url } = await services.registrationSignIn.issueLink(signedIn.user, 'cli');
    const link = url.split('#link=')[1]!;
    return (await services.registrationSignIn.openWithLink({ ...signedIn, link })).token;
  }

  /** Options, then the authenticator's new credential kept under `name`, inside the session `token`. */
  async function add(
    signedIn: { user: User; clientAddress: string },
    token: string,
    authenticator: SoftwareAuthenticator,
    name = 'mine',
  ) {
    const options = await passkeys.registrationOptions(signedIn, token, RP);
    const response = authenticator.register(options, RP.origin);
    return passkeys.add({ ...signedIn, response, name }, token, RP);
  }

  /** The passkey's answer to fresh sign-in options. */
  async function signInWith(
    signedIn: { user: User; clientAddress: string },
    authenticator: SoftwareAuthenticator,
    how: Parameters<SoftwareAuthenticator['authenticate']>[2] = {},
  ) {
    const options = await passkeys.signInOptions(signedIn, RP);
    return passkeys.openWithPasskey(
      { ...signedIn, response: authenticator.authenticate(options, RP.origin, how) },
      RP,
    );
  }

  const reasons = async (userId: string, event: string) =>
    (await store.audit.list({ userId, event, limit: 100 })).map((entry) => entry.details.reason).reverse();
  const events = async (userId: string, prefix: string) =>
    (await store.audit.list({ userId, limit: 100 }))
      .filter((entry) => entry.event.startsWith(prefix))
      .map((entry) => entry.event)
      .reverse();

  return { services, store, clock, passkeys, person, registering, add, signInWith, reasons, events };
}

describe.each(STORE_KINDS)("a person's own passkeys on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a password alone lists, adds, renames and removes no passkey, and there is nothing to sign in with',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      for (const token of [undefined, '', 'x'.repeat(43)]) {
        await expect(d.passkeys.list(pat, token)).rejects.toMatchObject(SIGN_IN_NEEDED);
        await expect(d.passkeys.registrationOptions(pat, token, RP)).rejects.toMatchObject(SIGN_IN_NEEDED);
        await expect(d.passkeys.rename({ ...pat, id: 'AAAA', name: 'x' }, token)).rejects.toMatchObject(
          SIGN_IN_NEEDED,
        );
        await expect(d.passkeys.remove({ ...pat, id: 'AAAA' }, token)).rejects.toMatchObject(SIGN_IN_NEEDED);
      }
      await expect(d.passkeys.signInOptions(pat, RP)).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await d.reasons(pat.user.id, 'registration.refused')).toEqual(['no-passkey']);
      expect(await store.userPasskeys.listOfUser(pat.user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    "another person's registration session adds nothing to this person",
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const other = await d.person();
      const othersToken = await d.registering(other);
      await expect(d.add(pat, othersToken, new SoftwareAuthenticator())).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      expect(await store.userPasskeys.listOfUser(pat.user.id)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a passkey added in a registration session is kept under its trimmed name, audited, and opens the next session',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const authenticator = new SoftwareAuthenticator();
      const added = await d.add(pat, await d.registering(pat), authenticator, ' work laptop ');
      expect(added).toEqual({ id: expect.any(String), name: 'work laptop', createdAt: T0, lastUsedAt: null });
      expect(await store.audit.list({ userId: pat.user.id, event: 'passkey.registered' })).toMatchObject([
        {
          actor: pat.user.id,
          clientAddress: CLIENT,
          details: { credentialId: added.id, aaguid: expect.any(String) },
        },
      ]);

      d.clock.advance(60_000);
      const opened = await d.signInWith(pat, authenticator);
      expect(opened.expiresAt).toBe(T0 + 60_000 + 15 * 60_000);
      await expect(d.services.registrationSignIn.require(pat.user, opened.token)).resolves.toMatchObject({
        method: 'passkey',
      });
      expect(await d.passkeys.list(pat, opened.token)).toEqual([{ ...added, lastUsedAt: T0 + 60_000 }]);
      expect(
        (await store.audit.list({ userId: pat.user.id, event: 'registration.opened' }))[0]?.details,
      ).toMatchObject({ method: 'passkey', credentialId: added.id });
    },
  );

  storeTest.concurrent(
    'renaming and removing reach only the person’s own passkeys: an unknown one is not found, nothing audited',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const token = await d.registering(pat);
      const { id } = await d.add(pat, token, new SoftwareAuthenticator());
      const other = await d.person();
      const othersToken = await d.registering(other);
      await expect(d.passkeys.rename({ ...other, id, name: 'stolen' }, othersToken)).rejects.toMatchObject({
        textKey: 'error.notFound',
      });
      await expect(d.passkeys.remove({ ...other, id }, othersToken)).rejects.toMatchObject({
        textKey: 'error.notFound',
      });
      await d.passkeys.rename({ ...pat, id, name: ' old laptop ' }, token);
      expect((await d.passkeys.list(pat, token)).map((passkey) => passkey.name)).toEqual(['old laptop']);
      await d.passkeys.remove({ ...pat, id }, token);
      await expect(d.passkeys.remove({ ...pat, id }, token)).rejects.toMatchObject({
        textKey: 'error.notFound',
      });
      expect(await d.events(pat.user.id, 'passkey.')).toEqual([
        'passkey.registered',
        'passkey.renamed',
        'passkey.removed',
      ]);
      expect(await d.events(other.user.id, 'passkey.')).toEqual([]);
    },
  );

  storeTest.concurrent(
    `a person keeps at most ${MAX_USER_PASSKEYS} passkeys: no options for one more, and none added past it meanwhile`,
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const token = await d.registering(pat);
      for (let n = 1; n < MAX_USER_PASSKEYS; n += 1)
        await d.add(pat, token, new SoftwareAuthenticator(), `key ${n}`);
      // Options asked with room for one, answered after the last place was taken elsewhere.
      const options = await d.passkeys.registrationOptions(pat, token, RP);
      await d.add(pat, token, new SoftwareAuthenticator(), 'the tenth');
      const late = new SoftwareAuthenticator().register(options, RP.origin);
      await expect(d.passkeys.add({ ...pat, response: late, name: 'late' }, token, RP)).rejects.toMatchObject(
        {
          errorNumber: 3,
          textKey: 'error.notPermitted',
        },
      );
      await expect(d.passkeys.registrationOptions(pat, token, RP)).rejects.toMatchObject({ errorNumber: 3 });
      expect(await store.userPasskeys.listOfUser(pat.user.id)).toHaveLength(MAX_USER_PASSKEYS);
      expect(await d.reasons(pat.user.id, 'passkey.refused')).toEqual(['challenge-unknown', 'too-many']);
    },
  );

  storeTest.concurrent(
    'one credential is kept once: the same answer again finds no challenge, a copy under new options is already registered',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const token = await d.registering(pat);
      const options = await d.passkeys.registrationOptions(pat, token, RP);
      const response = new SoftwareAuthenticator().register(options, RP.origin);
      await d.passkeys.add({ ...pat, response, name: 'once' }, token, RP);
      await expect(d.passkeys.add({ ...pat, response, name: 'twice' }, token, RP)).rejects.toMatchObject({
        errorNumber: 3,
      });
      expect(await store.userPasskeys.listOfUser(pat.user.id)).toHaveLength(1);
      expect(await d.reasons(pat.user.id, 'passkey.refused')).toEqual(['challenge-unknown']);
    },
  );

  storeTest.concurrent(
    "another person's passkey and an answer without user verification open nothing, each refusal audited",
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const mallory = await d.person();
      const shared = new SoftwareAuthenticator();
      const patsKey = await d.add(pat, await d.registering(pat), shared, 'pat');
      await d.add(mallory, await d.registering(mallory), shared, 'mallory');
      await expect(d.signInWith(mallory, shared, { credentialId: patsKey.id })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      await expect(d.signInWith(mallory, shared, { userVerified: false })).rejects.toMatchObject(
        SIGN_IN_NEEDED,
      );
      expect(await d.reasons(mallory.user.id, 'registration.refused')).toEqual([
        'unknown-passkey',
        'not-verified',
      ]);
      expect(
        (await store.audit.list({ userId: mallory.user.id, event: 'registration.refused' }))[1]?.details,
      ).toMatchObject({ method: 'passkey', credentialId: patsKey.id });
      expect(await store.audit.list({ userId: pat.user.id, event: 'registration.opened' })).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'a sign-in challenge is answered once, and only before it expires',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const authenticator = new SoftwareAuthenticator();
      await d.add(pat, await d.registering(pat), authenticator);
      const answerTo = async () =>
        authenticator.authenticate(await d.passkeys.signInOptions(pat, RP), RP.origin);
      const open = (response: Awaited<ReturnType<typeof answerTo>>) =>
        d.passkeys.openWithPasskey({ ...pat, response }, RP);

      const answer = await answerTo();
      await open(answer);
      await expect(open(answer)).rejects.toMatchObject(SIGN_IN_NEEDED);

      const inTime = await answerTo();
      d.clock.advance(PASSKEY_CHALLENGE_MS - 1);
      await expect(open(inTime)).resolves.toMatchObject({ token: expect.any(String) });
      const late = await answerTo();
      d.clock.advance(PASSKEY_CHALLENGE_MS);
      await expect(open(late)).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await d.reasons(pat.user.id, 'registration.refused')).toEqual([
        'challenge-unknown',
        'challenge-unknown',
      ]);
    },
  );

  storeTest.concurrent(
    'of four answers to one challenge at once, one opens a registration session',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const authenticator = new SoftwareAuthenticator();
      await d.add(pat, await d.registering(pat), authenticator);
      const response = authenticator.authenticate(await d.passkeys.signInOptions(pat, RP), RP.origin);
      const outcomes = await Promise.allSettled(
        [1, 2, 3, 4].map(() => d.passkeys.openWithPasskey({ ...pat, response }, RP)),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(await store.audit.list({ userId: pat.user.id, event: 'registration.opened' })).toHaveLength(2);
    },
  );

  storeTest.concurrent(
    'forgetting removes every passkey of the person, audited with who and how many, after which none opens anything',
    async ({ testStore: { store }, expect }) => {
      const d = await passkeysOn(store);
      const pat = await d.person();
      const other = await d.person();
      const token = await d.registering(pat);
      const authenticator = new SoftwareAuthenticator();
      await d.add(pat, token, authenticator, 'one');
      await d.add(pat, token, new SoftwareAuthenticator(), 'two');
      await d.add(other, await d.registering(other), new SoftwareAuthenticator());
      expect(await forgetUserPasskeys(d.services, pat.user, 'console:desk')).toBe(2);
      expect(await forgetUserPasskeys(d.services, pat.user, 'cli')).toBe(0);
      expect(
        (await store.audit.list({ userId: pat.user.id, event: 'passkey.forgotten' }))
          .map((entry) => [entry.actor, entry.details.count])
          .reverse(),
      ).toEqual([
        ['console:desk', 2],
        ['cli', 0],
      ]);
      await expect(d.signInWith(pat, authenticator)).rejects.toMatchObject(SIGN_IN_NEEDED);
      expect(await store.userPasskeys.listOfUser(other.user.id)).toHaveLength(1);
    },
  );
});
