import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { purgeCutoffs, purgeStore } from './retention.js';
import { NOW, rulesWith } from '../../testing/retention-domain.js';

describe.each(STORE_KINDS)(
  'the purge of proofs, challenges, registration sessions and one-time links on %s',
  (kind) => {
    storeTest.override('storeKind', kind);

    const HOUR = 3_600_000;
    /** The retention's grace (DEA_RETENTION_SESSION_HOURS): an hour. */
    const GRACE = HOUR;
    const LONG_AGO = NOW - GRACE - 60_000;
    const LATELY = NOW - GRACE + 60_000;

    storeTest(
      'removes each once expired or used longer ago than the grace, in batches, and keeps the others until then',
      async ({ testStore: { store } }) => {
        let made = 0;
        const person = async () => {
          made += 1;
          const id = newId();
          await store.users.create({
            id,
            username: usernameOrThrow(`person-${made}`),
            passwordHash: 'x',
            fullName: `Person ${made}`,
            locale: 'en',
            createdAt: LONG_AGO - HOUR,
          });
          return id;
        };
        const createdAt = LONG_AGO - HOUR;
        /** Each kind: one expired long ago, one used long ago (links), one expired lately (kept). */
        for (const expiresAt of [LONG_AGO, LATELY]) {
          await store.channelProofs.start({
            id: newId(),
            userId: await person(),
            key: 'email',
            address: 'p@example.org',
            origin: 'owner',
            codeHash: 'h',
            triesLeft: 3,
            createdAt,
            expiresAt,
          });
          const challenge = { id: newId(), userId: await person(), method: 'channel-code', channelId: null };
          await store.registration.addChallenge({
            ...challenge,
            codeHash: 'h',
            triesLeft: 3,
            createdAt,
            expiresAt,
          });
          await store.registration.addOpen({
            id: newId(),
            userId: await person(),
            method: 'link',
            channelId: null,
            tokenHash: `open-${newId()}`,
            createdAt,
            expiresAt,
            openedAt: createdAt,
          });
          await store.registration.addOidcFlow({
            state: newId(),
            userId: await person(),
            nonce: 'n',
            codeVerifier: 'v',
            // Its sign-in at the provider may take 10 minutes: expired then.
            createdAt: expiresAt - 10 * 60_000,
          });
        }
        /** Links: one expired long ago, one used long ago, one expired lately and one used lately (kept). */
        const links: [number, number | null][] = [
          [LONG_AGO, null],
          [NOW + HOUR, LONG_AGO],
          [LATELY, null],
          [NOW + HOUR, LATELY],
        ];
        for (const [expiresAt, usedAt] of links) {
          const userId = await person();
          const tokenHash = `t-${newId()}`;
          await store.channelProofs.addUndoLink({
            tokenHash,
            userId,
            channelId: newId(),
            key: 'email',
            createdAt,
            expiresAt,
          });
          if (usedAt !== null)
            expect(await store.channelProofs.useUndoLink([tokenHash], usedAt)).toBeDefined();
          await store.registration.addLink({
            tokenHash,
            userId,
            createdBy: 'console:admin',
            createdAt,
            expiresAt,
          });
          if (usedAt !== null)
            expect(await store.registration.useLink(userId, [tokenHash], usedAt)).toBe(true);
          await store.passwordLinks.add({ tokenHash, userId, createdAt, expiresAt });
          if (usedAt !== null) expect(await store.passwordLinks.use([tokenHash], usedAt)).toBe(true);
          const accountId = newId();
          await store.console.createAccount({
            id: accountId,
            username: usernameOrThrow(`admin-${made}`),
            displayName: 'Admin',
            role: 'admin',
            passwordHash: '',
            createdAt,
          });
          await store.console.addEnrolmentLink({ tokenHash, accountId, createdAt, expiresAt });
          if (usedAt !== null)
            expect(await store.console.useEnrolmentLink([tokenHash], accountId, usedAt)).toBe(true);
          // A remembered device: forgotten where the link was used.
          await store.rememberedDevices.add({ id: newId(), userId, tokenHash, createdAt, expiresAt });
          if (usedAt !== null) expect(await store.rememberedDevices.forgetAll(userId, usedAt)).toBe(1);
        }
        // Twelve more expired password links: the purge goes through them in batches of 10.
        for (let index = 0; index < 12; index += 1)
          await store.passwordLinks.add({
            tokenHash: `more-${index}`,
            userId: await person(),
            createdAt,
            expiresAt: LONG_AGO,
          });

        const kinds = [
          'channelProofs',
          'channelUndoLinks',
          'registrationChallenges',
          'registrationSessions',
          'registrationLinks',
          'registrationOidcFlows',
          'passwordLinks',
          'consoleEnrolmentLinks',
          'rememberedDevices',
        ] as const;
        const rules = rulesWith(50);
        rules.retention.sessionGraceMs = GRACE;
        const pauses: number[] = [];
        const outcome = await purgeStore(store, rules, {
          now: () => NOW,
          holder: 'test',
          actor: 'test',
          elapsed: () => 0,
          pause: (ms) => {
            pauses.push(ms);
            return Promise.resolve();
          },
        });
        const removed = {
          channelProofs: 1,
          channelUndoLinks: 2,
          registrationChallenges: 1,
          registrationSessions: 1,
          registrationLinks: 2,
          registrationOidcFlows: 1,
          passwordLinks: 14,
          consoleEnrolmentLinks: 2,
          rememberedDevices: 2,
        };
        expect(outcome).toMatchObject({ ran: true, removed, stopped: false });
        // One full batch (10 of the 14 password links), then the rest: one pause.
        expect(pauses).toEqual([0]);
        const [audited] = await store.audit.list({ event: 'store.purged', limit: 1 });
        expect(audited?.details).toMatchObject({ removed });
        // What was kept goes once its grace has passed too: one of each kind (two of each link).
        const later = purgeCutoffs(rules, NOW + 2 * 60_000);
        const left = Object.fromEntries(
          await Promise.all(
            kinds.map(async (each) => [each, await store.retention.count(each, later)] as const),
          ),
        );
        expect(left).toEqual({
          channelProofs: 1,
          channelUndoLinks: 2,
          registrationChallenges: 1,
          registrationSessions: 1,
          registrationLinks: 2,
          registrationOidcFlows: 1,
          passwordLinks: 2,
          consoleEnrolmentLinks: 2,
          rememberedDevices: 2,
        });
        expect(await store.retention.count('registrationSessions', purgeCutoffs(rules, NOW))).toBe(0);
      },
    );
  },
);
