import { describe } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { SoftwareAuthenticator } from '../../testing/software-authenticator.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { DomainError } from '../errors.js';
import type { ConsoleCaller } from './console-auth.js';
import {
  CONSOLE_PASSWORD,
  CONSOLE_T0 as T0,
  consoleSignInOf,
  enrolmentTokenOf,
} from '../../testing/console-domain.js';

const RP = { origin: 'https://dea.example.org', rpId: 'dea.example.org' };
const ALLOWED_MODEL = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';
const OTHER_MODEL = '01020304-0506-0708-0102-030405060708';

/**
 * The console's sign-in over the store, with the authenticator models it allows: `add` makes a
 * local account and answers the token of its enrolment link, `signIn` its password step as a caller.
 */
function consoleOf(store: Store, allowedAaguids: string[] = []) {
  const signIn = consoleSignInOf(store, { allowedAaguids });
  const { auth, accounts } = signIn;
  return {
    auth,
    accounts,
    add: (username: string) => signIn.addLocal(username),
    tokenOf: enrolmentTokenOf,
    async signIn(username: string): Promise<ConsoleCaller> {
      const { sessionId, xsrfToken } = await auth.password(username, CONSOLE_PASSWORD, '198.51.100.9');
      return auth.caller(sessionId, xsrfToken, true);
    },
    /** The session as it stands now (after a passkey step). */
    again: (caller: ConsoleCaller) => auth.caller(caller.sessionId, undefined, false),
    async register(caller: ConsoleCaller, authenticator: SoftwareAuthenticator, token?: string) {
      const options = await auth.registrationOptions(caller, RP, token);
      return auth.register(caller, authenticator.register(options, RP.origin), RP, token);
    },
    events: async (event: Parameters<Store['audit']['list']>[0]['event']) =>
      store.audit.list({ event, limit: 100 }),
  };
}

/** The refusal's catalog text, or 'accepted'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) =>
      error instanceof DomainError ? error.textKey : `not a refusal: ${(error as Error).message}`,
  );

describe.each(STORE_KINDS)("a console account's passkeys on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a first passkey's options need the account's own enrolment link: none, a made-up one and another account's are refused and audited",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      await t.add('ada');
      const { token: bosToken } = await t.add('bo');
      const ada = await t.signIn('ada');
      expect(await outcome(t.auth.registrationOptions(ada, RP))).toBe('console.enrolmentLinkNeeded');
      expect(await outcome(t.auth.registrationOptions(ada, RP, ''))).toBe('console.enrolmentLinkNeeded');
      expect(await outcome(t.auth.registrationOptions(ada, RP, 'made-up'))).toBe(
        'console.enrolmentLinkInvalid',
      );
      expect(await outcome(t.auth.registrationOptions(ada, RP, bosToken))).toBe(
        'console.enrolmentLinkInvalid',
      );
      expect((await t.events('console.enrolment_link_refused')).map((entry) => entry.details)).toEqual([
        { role: 'helpdesk', reason: 'other-account' },
        { role: 'helpdesk', reason: 'unknown' },
        { role: 'helpdesk', reason: 'missing' },
        { role: 'helpdesk', reason: 'missing' },
      ]);
      // Bo's link was only looked at: it still registers bo's passkey.
      const bo = await t.signIn('bo');
      await t.register(bo, new SoftwareAuthenticator(), bosToken);
      expect(await store.console.listPasskeys(bo.account.id)).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'with its link, the first passkey is registered and the session is past its passkey; the link is then used up',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('cy');
      const cy = await t.signIn('cy');
      const options = await t.auth.registrationOptions(cy, RP, token);
      expect(options).toMatchObject({
        rp: { id: RP.rpId, name: 'Emergency Access console' },
        user: { name: 'cy', displayName: 'cy' },
        attestation: 'none',
        authenticatorSelection: { userVerification: 'required' },
      });
      const authenticator = new SoftwareAuthenticator();
      await t.auth.register(cy, authenticator.register(options, RP.origin), RP, token);

      const [passkey] = await store.console.listPasskeys(account.id);
      expect(passkey).toMatchObject({ accountId: account.id, createdAt: T0, transports: ['usb'] });
      expect(await t.again(cy)).toMatchObject({ passkeyVerified: true });
      expect(await t.events('console.enrolment_link_used')).toMatchObject([
        { actor: 'console:cy', details: { role: 'helpdesk', credentialId: passkey?.credentialId } },
      ]);
      expect(await t.events('console.passkey_registered')).toMatchObject([
        { actor: 'console:cy', details: { credentialId: passkey?.credentialId } },
      ]);

      // Its passkeys reset, the old link opens nothing; the new one does.
      const { link } = await t.accounts.resetPasskeys(account, 'cli');
      const later = await t.signIn('cy');
      expect(await outcome(t.register(later, authenticator, token))).toBe('console.enrolmentLinkInvalid');
      expect((await t.events('console.enrolment_link_refused'))[0]?.details).toMatchObject({
        reason: 'used',
      });
      expect(await outcome(t.register(later, authenticator, t.tokenOf(link.url)))).toBe('accepted');
      // Another session with the link just used, once the passkey is bound: a second passkey,
      // which needs a sign-in with the first whatever the link (in the race below, a registration
      // that reads the account after the first passkey is bound is refused the same way).
      expect(
        await outcome(t.register(await t.signIn('cy'), new SoftwareAuthenticator(), t.tokenOf(link.url))),
      ).toBe('error.notPermitted');
    },
  );

  storeTest.concurrent(
    'the registration needs the link too, not only its options: without it nothing is bound and the link stays',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('dee');
      const dee = await t.signIn('dee');
      const authenticator = new SoftwareAuthenticator();
      const options = await t.auth.registrationOptions(dee, RP, token);
      expect(await outcome(t.auth.register(dee, authenticator.register(options, RP.origin), RP))).toBe(
        'console.enrolmentLinkNeeded',
      );
      expect(await store.console.listPasskeys(account.id)).toEqual([]);
      expect(await t.events('console.passkey_registered')).toEqual([]);
      expect(await outcome(t.register(dee, authenticator, token))).toBe('accepted');
    },
  );

  storeTest.concurrent(
    'a forged registration is refused and audited once: it spends the challenge, and a second try has none',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('eve');
      const eve = await t.signIn('eve');
      await t.auth.registrationOptions(eve, RP, token);
      const forged = {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key' as const,
        response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
        clientExtensionResults: {},
      };
      expect(await outcome(t.auth.register(eve, forged, RP, token))).toBe('login.failed');
      await expect(t.auth.register(eve, forged, RP, token)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });
      expect(await t.events('console.passkey_refused')).toMatchObject([
        { actor: 'console:eve', details: { ceremony: 'registration' } },
      ]);
      expect(await store.console.listPasskeys(account.id)).toEqual([]);
      // An answer for another site is no better.
      const options = await t.auth.registrationOptions(eve, RP, token);
      const elsewhere = new SoftwareAuthenticator().register(options, 'https://evil.example');
      expect(await outcome(t.auth.register(eve, elsewhere, RP, token))).toBe('login.failed');
      expect(await outcome(t.register(eve, new SoftwareAuthenticator(), token))).toBe('accepted');
    },
  );

  storeTest.concurrent(
    'another passkey needs one used in this session: the password alone registers none',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('fay');
      const first = new SoftwareAuthenticator();
      await t.register(await t.signIn('fay'), first, token);
      const halfway = await t.signIn('fay');
      await expect(t.auth.registrationOptions(halfway, RP)).rejects.toMatchObject({
        kind: 'unauthenticated',
      });

      // Past the passkey, a second one is registered without a link, the first excluded from it.
      const options = await t.auth.authenticationOptions(halfway, RP);
      await t.auth.authenticate(halfway, first.authenticate(options, RP.origin), RP);
      const past = await t.again(halfway);
      const second = await t.auth.registrationOptions(past, RP);
      expect(second.excludeCredentials?.map((credential) => credential.id)).toEqual(
        (await store.console.listPasskeys(account.id)).map((passkey) => passkey.credentialId),
      );
      await t.auth.register(past, new SoftwareAuthenticator().register(second, RP.origin), RP);
      expect(await store.console.listPasskeys(account.id)).toHaveLength(2);
      expect(await t.events('console.enrolment_link_used')).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    "a passkey signs its own account in, audited; another account's passkey and a replayed answer are refused",
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const gil = await t.add('gil');
      const hal = await t.add('hal');
      const gilsKey = new SoftwareAuthenticator();
      await t.register(await t.signIn('gil'), gilsKey, gil.token);
      await t.register(await t.signIn('hal'), new SoftwareAuthenticator(), hal.token);

      // Hal's session, answered with gil's passkey.
      const halfway = await t.signIn('hal');
      const halsOptions = await t.auth.authenticationOptions(halfway, RP);
      const [gilsCredential] = await store.console.listPasskeys(gil.account.id);
      const wrongKey = gilsKey.authenticate(halsOptions, RP.origin, {
        credentialId: gilsCredential?.credentialId ?? '',
      });
      expect(await outcome(t.auth.authenticate(halfway, wrongKey, RP))).toBe('login.failed');
      expect((await t.again(halfway)).passkeyVerified).toBe(false);

      const gils = await t.signIn('gil');
      const answer = gilsKey.authenticate(await t.auth.authenticationOptions(gils, RP), RP.origin);
      await t.auth.authenticate(gils, answer, RP);
      expect((await t.again(gils)).passkeyVerified).toBe(true);
      expect(await t.events('console.signin')).toMatchObject([
        { actor: 'console:gil', details: { role: 'helpdesk', credentialId: gilsCredential?.credentialId } },
      ]);
      // The challenge was taken: the same answer again is refused.
      expect(await outcome(t.auth.authenticate(gils, answer, RP))).toBe('login.failed');
      expect((await t.events('console.passkey_refused')).map((entry) => entry.actor)).toEqual([
        'console:gil',
        'console:hal',
      ]);
    },
  );

  storeTest.concurrent(
    'a passkey whose counter went back (a cloned key) is refused, and the session stays short of its passkey',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('kim');
      const key = new SoftwareAuthenticator();
      await t.register(await t.signIn('kim'), key, token);
      const [passkey] = await store.console.listPasskeys(account.id);
      // The authenticator had counted to 5; this one answers 0.
      await store.console.usePasskey(passkey?.credentialId ?? '', 5, T0);
      const halfway = await t.signIn('kim');
      const answer = key.authenticate(await t.auth.authenticationOptions(halfway, RP), RP.origin);
      expect(await outcome(t.auth.authenticate(halfway, answer, RP))).toBe('login.failed');
      expect((await t.again(halfway)).passkeyVerified).toBe(false);
      expect(await store.console.findPasskey(passkey?.credentialId ?? '')).toMatchObject({ counter: 5 });
      expect(await t.events('console.passkey_refused')).toMatchObject([
        { actor: 'console:kim', details: { ceremony: 'authentication' } },
      ]);
      expect(await t.events('console.signin')).toEqual([]);
    },
  );

  storeTest.concurrent(
    'of six registrations at once with one link, in sessions of their own, one passkey is bound',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store);
      const { account, token } = await t.add('ivy');
      const sessions = await Promise.all(Array.from({ length: 6 }, () => t.signIn('ivy')));
      const outcomes = await Promise.all(
        sessions.map((session) => outcome(t.register(session, new SoftwareAuthenticator(), token))),
      );
      expect(
        outcomes.filter((each) => each === 'accepted'),
        outcomes.join(', '),
      ).toHaveLength(1);
      // Every other one is refused: one that read the account before the passkey was bound finds
      // the link used; one that reads it after (on a loaded machine a registration can end before
      // another has begun) is a second passkey, which needs a sign-in with the first.
      for (const refusal of outcomes.filter((each) => each !== 'accepted'))
        expect(['console.enrolmentLinkInvalid', 'error.notPermitted'], outcomes.join(', ')).toContain(
          refusal,
        );
      // Each refusal of the link audited as used; the others met the passkey already bound.
      expect((await t.events('console.enrolment_link_refused')).map((entry) => entry.details.reason)).toEqual(
        outcomes.filter((each) => each === 'console.enrolmentLinkInvalid').map(() => 'used'),
      );
      expect(await store.console.listPasskeys(account.id)).toHaveLength(1);
      expect(await t.events('console.enrolment_link_used')).toHaveLength(1);
    },
  );

  storeTest.concurrent(
    'with allowed models, only an attested, listed one is registered; a refused one is audited and leaves the link',
    async ({ testStore: { store }, expect }) => {
      const t = consoleOf(store, [ALLOWED_MODEL]);
      const { account, token } = await t.add('jo');
      const jo = await t.signIn('jo');
      expect((await t.auth.registrationOptions(jo, RP, token)).attestation).toBe('direct');
      for (const authenticator of [
        new SoftwareAuthenticator(OTHER_MODEL, 'certificate'),
        new SoftwareAuthenticator(ALLOWED_MODEL, 'none'),
        new SoftwareAuthenticator(ALLOWED_MODEL, 'self'),
      ])
        expect(await outcome(t.register(jo, authenticator, token))).toBe('console.authenticatorNotAllowed');
      expect((await t.events('console.passkey_refused')).map((entry) => entry.details).reverse()).toEqual([
        {
          role: 'helpdesk',
          ceremony: 'registration',
          reason: 'authenticator-not-allowed',
          aaguid: OTHER_MODEL,
          fmt: 'packed',
        },
        {
          role: 'helpdesk',
          ceremony: 'registration',
          reason: 'authenticator-not-allowed',
          aaguid: ALLOWED_MODEL,
          fmt: 'none',
        },
        {
          role: 'helpdesk',
          ceremony: 'registration',
          reason: 'authenticator-not-allowed',
          aaguid: ALLOWED_MODEL,
          fmt: 'packed',
        },
      ]);
      expect(await store.console.listPasskeys(account.id)).toEqual([]);
      expect(
        await outcome(t.register(jo, new SoftwareAuthenticator(ALLOWED_MODEL, 'certificate'), token)),
      ).toBe('accepted');
      expect(await t.events('console.passkey_registered')).toMatchObject([
        { details: { aaguid: ALLOWED_MODEL } },
      ]);
    },
  );
});
