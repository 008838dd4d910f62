import { CONSOLE_ENROLMENT_FRAGMENT, usernameOrThrow } from '@dea/contract';
import { describe, test } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { ConsoleAccount, Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ConsoleEnrolment, enrolmentRefused } from './console-enrolment.js';

const T0 = Date.UTC(2026, 11, 7, 11);
const HOUR = 60 * 60_000;
const CONSOLE_URL = 'https://dea.example.org/admin/';
const CURRENT_KEY = Buffer.alloc(32, 1);
const PREVIOUS_KEY = Buffer.alloc(32, 2);

/** Enrolment links under these keys, valid two hours, on a clock the test moves. */
function enrolmentOf(store: Store, keys: Buffer[] = [CURRENT_KEY]) {
  const clock = { at: T0 };
  const enrolment = new ConsoleEnrolment({
    store,
    keys,
    settings: { consoleUrl: CONSOLE_URL, enrolmentLinkMs: 2 * HOUR },
    now: () => clock.at,
  });
  return { enrolment, clock };
}

async function accountOf(store: Store, username: string): Promise<ConsoleAccount> {
  const account: ConsoleAccount = {
    id: newId(T0),
    username: usernameOrThrow(username),
    displayName: username,
    role: 'helpdesk',
    passwordHash: 'hash',
    disabled: false,
    createdAt: T0,
    scope: null,
  };
  await store.console.createAccount(account);
  return account;
}

const tokenOf = (url: string) => url.slice(`${CONSOLE_URL}#${CONSOLE_ENROLMENT_FRAGMENT}`.length);

describe.each(STORE_KINDS)('console enrolment links on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    "a link is the console's address with a token in its fragment, kept only as a keyed hash and audited without it",
    async ({ testStore: { store }, expect }) => {
      const { enrolment } = enrolmentOf(store);
      const ada = await accountOf(store, 'ada');
      const { url, expiresAt } = await enrolment.issue(ada, 'console:root');
      expect(url.startsWith(`${CONSOLE_URL}#${CONSOLE_ENROLMENT_FRAGMENT}`)).toBe(true);
      const token = tokenOf(url);
      expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(expiresAt).toBe(T0 + 2 * HOUR);
      expect(
        await store.console.findEnrolmentLink([keyedHash(CURRENT_KEY, 'console-enrolment', token)]),
      ).toMatchObject({ accountId: ada.id, createdAt: T0, expiresAt, usedAt: null });
      expect(await store.console.findEnrolmentLink([token])).toBeUndefined();
      const entries = await store.audit.list({ limit: 10 });
      expect(entries).toMatchObject([
        {
          event: 'console.enrolment_link_issued',
          actor: 'console:root',
          details: { username: 'ada', expiresAt: new Date(T0 + 2 * HOUR).toISOString() },
        },
      ]);
      expect(JSON.stringify(entries)).not.toContain(token);
    },
  );

  storeTest.concurrent(
    'a link is good until the moment before it expires, and expired from then on',
    async ({ testStore: { store }, expect }) => {
      const { enrolment, clock } = enrolmentOf(store);
      const bo = await accountOf(store, 'bo');
      const token = tokenOf((await enrolment.issue(bo, 'cli')).url);
      clock.at = T0 + 2 * HOUR - 1;
      expect(await enrolment.check(bo, token)).toBeUndefined();
      clock.at = T0 + 2 * HOUR;
      expect(await enrolment.check(bo, token)).toBe('expired');
      expect(await enrolment.use(bo, token, clock.at)).toBe('expired');
      expect(
        (await store.console.findEnrolmentLink([keyedHash(CURRENT_KEY, 'console-enrolment', token)]))?.usedAt,
      ).toBeNull();
    },
  );

  storeTest.concurrent(
    "a link is used once, by its own account only: another account's use leaves it, a second use is refused",
    async ({ testStore: { store }, expect }) => {
      const { enrolment } = enrolmentOf(store);
      const cy = await accountOf(store, 'cy');
      const dee = await accountOf(store, 'dee');
      const token = tokenOf((await enrolment.issue(cy, 'cli')).url);
      expect(await enrolment.check(dee, token)).toBe('other-account');
      expect(await enrolment.use(dee, token, T0)).toBe('other-account');
      // Looking is not using.
      expect(await enrolment.check(cy, token)).toBeUndefined();
      expect(await enrolment.use(cy, token, T0 + 1)).toBeUndefined();
      expect(await enrolment.use(cy, token, T0 + 2)).toBe('used');
      expect(await enrolment.check(cy, token)).toBe('used');
      for (const absent of [undefined, '']) {
        expect(await enrolment.check(cy, absent)).toBe('missing');
        expect(await enrolment.use(cy, absent, T0)).toBe('missing');
      }
      expect(await enrolment.check(cy, 'made-up')).toBe('unknown');
    },
  );

  storeTest.concurrent(
    'a newer link replaces the earlier unused one of the account, not the links of others',
    async ({ testStore: { store }, expect }) => {
      const { enrolment } = enrolmentOf(store);
      const eve = await accountOf(store, 'eve');
      const fay = await accountOf(store, 'fay');
      const first = tokenOf((await enrolment.issue(eve, 'cli')).url);
      const fays = tokenOf((await enrolment.issue(fay, 'cli')).url);
      const second = tokenOf((await enrolment.issue(eve, 'cli')).url);
      expect(await enrolment.check(eve, first)).toBe('unknown');
      expect(await enrolment.check(eve, second)).toBeUndefined();
      expect(await enrolment.check(fay, fays)).toBeUndefined();
    },
  );

  storeTest.concurrent(
    'while the secret is replaced, a link made under the previous one still works; once it is gone, it does not',
    async ({ testStore: { store }, expect }) => {
      const gil = await accountOf(store, 'gil');
      const before = enrolmentOf(store, [PREVIOUS_KEY]).enrolment;
      const token = tokenOf((await before.issue(gil, 'cli')).url);
      const during = enrolmentOf(store, [CURRENT_KEY, PREVIOUS_KEY]).enrolment;
      const after = enrolmentOf(store, [CURRENT_KEY]).enrolment;
      expect(await after.check(gil, token)).toBe('unknown');
      expect(await during.check(gil, token)).toBeUndefined();
      expect(await during.use(gil, token, T0)).toBeUndefined();
      // A new link is made under the current secret.
      const fresh = tokenOf((await during.issue(gil, 'cli')).url);
      expect(await after.check(gil, fresh)).toBeUndefined();
    },
  );

  storeTest.concurrent(
    'of eight uses of one link at once, one succeeds and the others are told it was used',
    async ({ testStore: { store }, expect }) => {
      const { enrolment } = enrolmentOf(store);
      const hal = await accountOf(store, 'hal');
      const token = tokenOf((await enrolment.issue(hal, 'cli')).url);
      const answers = await Promise.all(Array.from({ length: 8 }, () => enrolment.use(hal, token, T0)));
      expect(answers.filter((answer) => answer === undefined)).toHaveLength(1);
      expect(answers.filter((answer) => answer === 'used')).toHaveLength(7);
    },
  );

  test('a person is told only whether a link was missing or cannot be used, never why', ({ expect }) => {
    expect(enrolmentRefused('missing')).toMatchObject({
      errorNumber: 3,
      textKey: 'console.enrolmentLinkNeeded',
    });
    for (const reason of ['unknown', 'used', 'expired', 'other-account'] as const)
      expect(enrolmentRefused(reason), reason).toMatchObject({
        errorNumber: 3,
        textKey: 'console.enrolmentLinkInvalid',
        params: {},
      });
  });
});
