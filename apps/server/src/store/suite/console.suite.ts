import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { newId } from '../../crypto/ids.js';
import { MINUTE, storeCase, T0 } from './store-fixture.js';

/** The console's accounts, passkeys, sessions, challenges and enrolment links. */
export function consoleSuite(): void {
  describe.concurrent('console', () => {
    storeCase(
      'keeps accounts, passkeys and sessions; a challenge is taken once; counters only move on',
      async ({ store, expect }) => {
        const account = {
          id: newId(),
          username: usernameOrThrow('ada'),
          displayName: 'Ada Admin',
          role: 'admin' as const,
          passwordHash: 'h',
          createdAt: T0,
        };
        await store.console.createAccount(account);
        await expect(store.console.createAccount({ ...account, id: newId() })).rejects.toThrow();
        expect(await store.console.findAccountByUsername(usernameOrThrow('ada'))).toEqual({
          ...account,
          disabled: false,
          scope: null,
        });
        expect(await store.console.updateAccount(account.id, { scope: ['Finance', 'Sales'] })).toBe(true);
        expect((await store.console.findAccountById(account.id))?.scope).toEqual(['Finance', 'Sales']);
        expect(await store.console.updateAccount(account.id, { scope: null })).toBe(true);
        expect((await store.console.findAccountById(account.id))?.scope).toBeNull();
        expect(await store.console.updateAccount(account.id, { disabled: true, role: 'auditor' })).toBe(true);
        expect(await store.console.findAccountById(account.id)).toMatchObject({
          disabled: true,
          role: 'auditor',
        });

        const passkey = {
          credentialId: 'cred-1',
          accountId: account.id,
          publicKey: 'pk',
          counter: 5,
          transports: ['internal'],
          createdAt: T0,
          lastUsedAt: null,
        };
        await store.console.addPasskey(passkey);
        expect(await store.console.listPasskeys(account.id)).toEqual([passkey]);
        expect(await store.console.usePasskey('cred-1', 5, T0 + 1)).toBe(false);
        expect(await store.console.usePasskey('cred-1', 6, T0 + 2)).toBe(true);
        expect(await store.console.findPasskey('cred-1')).toMatchObject({ counter: 6, lastUsedAt: T0 + 2 });
        await store.console.addPasskey({ ...passkey, credentialId: 'cred-0', counter: 0 });
        expect(await store.console.usePasskey('cred-0', 0, T0 + 3)).toBe(true);

        await store.console.createSession({
          idHash: 's1',
          accountId: account.id,
          xsrfHash: 'x',
          createdAt: T0,
          lastSeenAt: T0,
        });
        await store.console.setChallenge('s1', 'challenge-1');
        const takers = await Promise.all([1, 2, 3].map(() => store.console.takeChallenge('s1')));
        expect(takers.filter((taken) => taken === 'challenge-1')).toHaveLength(1);
        await store.console.markPasskey('s1', T0 + 4);
        expect(await store.console.findSession('s1')).toMatchObject({
          passkeyAt: T0 + 4,
          challenge: null,
          endedAt: null,
        });
        expect(await store.console.endSessionsOf(account.id, T0 + 5)).toBe(1);
        expect((await store.console.findSession('s1'))?.endedAt).toBe(T0 + 5);
        expect(await store.console.removePasskeys(account.id)).toBe(2);
        expect(await store.console.removeAccount(account.id)).toBe(true);
        expect(await store.console.findSession('s1')).toBeUndefined();
        expect(await store.console.listAccounts()).toEqual([]);
      },
    );

    storeCase(
      'an enrolment link is used once, even by many at once over two instances; not after it expires, not by another account',
      async ({ store, expect, openSecondInstance }) => {
        const account = (username: string) => ({
          id: newId(),
          username: usernameOrThrow(username),
          displayName: username,
          role: 'admin' as const,
          passwordHash: 'h',
          createdAt: T0,
        });
        const ada = account('ada');
        const bo = account('bo');
        await store.console.createAccount(ada);
        await store.console.createAccount(bo);
        const link = { tokenHash: 'link-1', accountId: ada.id, createdAt: T0, expiresAt: T0 + MINUTE };
        await store.console.addEnrolmentLink(link);
        expect(await store.console.findEnrolmentLink(['other', 'link-1'])).toEqual({ ...link, usedAt: null });
        expect(await store.console.useEnrolmentLink(['link-1'], bo.id, T0 + 1)).toBe(false);
        expect(await store.console.useEnrolmentLink(['link-1'], ada.id, T0 + MINUTE)).toBe(false);

        const second = await openSecondInstance();
        try {
          const uses = await Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              (i % 2 === 0 ? store : second).console.useEnrolmentLink(['link-1'], ada.id, T0 + 2),
            ),
          );
          expect(uses.filter(Boolean)).toHaveLength(1);
        } finally {
          await second.close();
        }
        expect(await store.console.findEnrolmentLink(['link-1'])).toMatchObject({ usedAt: T0 + 2 });

        // A new link replaces the account's unused ones; a used one stays as it was.
        await store.console.addEnrolmentLink({ ...link, tokenHash: 'link-2' });
        await store.console.addEnrolmentLink({ ...link, tokenHash: 'link-3' });
        expect(await store.console.findEnrolmentLink(['link-2'])).toBeUndefined();
        expect(await store.console.findEnrolmentLink(['link-1'])).toMatchObject({ usedAt: T0 + 2 });
        expect(await store.console.useEnrolmentLink(['link-3'], ada.id, T0 + 3)).toBe(true);
        expect(await store.console.removeAccount(ada.id)).toBe(true);
        expect(await store.console.findEnrolmentLink(['link-3'])).toBeUndefined();
      },
    );
  });
}
