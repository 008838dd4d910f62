import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { ProvisionError, type SourcedUser } from './provision-user.js';

const sourced = (name: string, extra: Partial<SourcedUser> = {}): SourcedUser => ({
  source: 'ldap',
  externalId: `id-${name}`,
  username: name,
  fullName: `Person ${name}`,
  disabled: false,
  channels: { email: `${name}@example.com`, mobile: '+49 170 5550123' },
  groups: { managed: ['Staff', 'VPN'], memberOf: ['Staff', 'VPN'] },
  ...extra,
});

/**
 * A source's new person, one at a time (a directory sign-in, SCIM, a batch sent back to one user
 * at a time), is made as a batch makes them (people-batch.ts): whole in one transaction, audited
 * once with what the source gave (ADR 0044).
 */
describe.each(STORE_KINDS)('a new person from a source, one at a time, on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'is one user.created entry naming the channel keys and groups, never the addresses',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, Date.now);
      const { outcome, user, warnings } = await provisioning.provision(
        sourced('nora', { channels: { email: 'nora@example.com', mobile: 'not a number' } }),
        'directory',
      );
      expect(outcome).toBe('created');
      expect(warnings).toEqual([expect.stringMatching(/^mobile: "not a number" is not a usable address/)]);
      const entries = await store.audit.list({ userId: user.id });
      expect(entries).toMatchObject([
        {
          event: 'user.created',
          actor: 'directory',
          details: { source: 'ldap', username: 'nora', channels: ['email'], groups: ['Staff', 'VPN'] },
        },
      ]);
      expect(JSON.stringify(entries)).not.toContain('nora@example.com');
      expect((await store.channels.listOfUser(user.id)).map((channel) => channel.key)).toEqual(['email']);
      expect((await store.groups.listOfUser(user.id)).map((group) => group.name).sort()).toEqual([
        'Staff',
        'VPN',
      ]);
      // The groups a source names are made for it (their own entries), once.
      expect((await store.audit.list({ event: 'group.created' })).length).toBe(2);
    },
  );

  storeTest.concurrent(
    'a person the source has disabled is created disabled, with user.disabled besides',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, Date.now);
      const { user } = await provisioning.provision(
        sourced('otto', { disabled: true, groups: { managed: [], memberOf: [] }, channels: {} }),
        'directory',
      );
      expect(user.disabled).toBe(true);
      expect((await store.audit.list({ userId: user.id })).map((entry) => entry.event).sort()).toEqual([
        'user.created',
        'user.disabled',
      ]);
      const [created] = await store.audit.list({ userId: user.id, event: 'user.created' });
      expect(created?.details).toEqual({ source: 'ldap', username: 'otto' });
    },
  );

  storeTest.concurrent(
    'a group the rules refuse leaves nothing written: no user, no channel, no entry',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, Date.now);
      const refused = await provisioning
        .provision(
          sourced('pia', { groups: { managed: ['Line\nbreak'], memberOf: ['Line\nbreak'] } }),
          'directory',
        )
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ProvisionError);
      expect(await store.users.findByUsername(usernameOrThrow('pia'))).toBeUndefined();
      expect(await store.audit.list({ event: 'user.created' })).toEqual([]);
      expect(await store.groups.list()).toEqual([]);
    },
  );
});
