import { describe } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { SourcedUser } from './provision-user.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const LATER = T0 + 60_000;

const sourced = (name: string, extra: Partial<SourcedUser> = {}): SourcedUser => ({
  source: 'ldap',
  externalId: `id-${name}`,
  username: name,
  fullName: `Person ${name}`,
  locale: 'de',
  timeZone: 'Europe/Berlin',
  disabled: false,
  channels: { email: `${name}@example.com`, mobile: '+49 170 5550123' },
  groups: { managed: ['Staff', 'VPN'], memberOf: ['Staff'] },
  ...extra,
});

/**
 * A user the source gave at T0, and the provisioning that brings them up to date a minute later:
 * what the second call writes is what the test reads (entries at LATER).
 */
async function provisioned(store: Store, first: SourcedUser) {
  const { provisioning: atFirst } = identityOf(store, () => T0);
  const { user } = await atFirst.provision(first, 'directory');
  const { provisioning } = identityOf(store, () => LATER);
  const entriesSince = async () =>
    (await store.audit.list({ userId: user.id, limit: 100 }))
      .filter((entry) => entry.at === LATER)
      .reverse()
      .map((entry) => ({ event: entry.event, actor: entry.actor, details: entry.details }));
  const channelsOf = async () =>
    (await store.channels.listOfUser(user.id)).map((channel) => [channel.key, channel.address]);
  const groupsOf = async () => (await store.groups.listOfUser(user.id)).map((group) => group.name).sort();
  return { provisioning, user, entriesSince, channelsOf, groupsOf };
}

describe.each(STORE_KINDS)('a known person brought up to date by their source on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'the same person again changes nothing and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, entriesSince } = await provisioned(store, sourced('ann'));
      const again = await provisioning.provision(sourced('ann'), 'directory');
      expect(again).toEqual({ outcome: 'unchanged', user, warnings: [] });
      expect(await entriesSince()).toEqual([]);
      expect((await store.users.findById(user.id))?.updatedAt).toBe(user.updatedAt);
    },
  );

  storeTest.concurrent(
    "a rename at the source keeps the person (their id, channels, groups) under the new name, audited by the source's actor",
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, entriesSince, channelsOf, groupsOf } = await provisioned(
        store,
        sourced('ann'),
      );
      const renamed = await provisioning.provision(
        sourced('Ann.Berg', {
          externalId: 'id-ann',
          fullName: 'Ann Berg',
          channels: sourced('ann').channels,
        }),
        'directory',
      );
      expect(renamed.outcome).toBe('updated');
      expect(renamed.user).toMatchObject({
        id: user.id,
        username: 'ann.berg',
        fullName: 'Ann Berg',
        updatedAt: LATER,
      });
      expect(await entriesSince()).toEqual([
        {
          event: 'user.updated',
          actor: 'directory',
          details: { source: 'ldap', fields: ['username', 'fullName'] },
        },
      ]);
      expect(await channelsOf()).toHaveLength(2);
      expect(await groupsOf()).toEqual(['Staff']);
    },
  );

  storeTest.concurrent(
    'a language or time zone the source leaves out stays as it is; one it gives as none is removed',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user } = await provisioned(store, sourced('ann'));
      const { locale: _locale, timeZone: _timeZone, ...unsaid } = sourced('ann');
      expect((await provisioning.provision(unsaid, 'directory')).outcome).toBe('unchanged');
      expect(await store.users.findById(user.id)).toMatchObject({ locale: 'de', timeZone: 'Europe/Berlin' });
      const none = await provisioning.provision(
        sourced('ann', { locale: null, timeZone: null }),
        'directory',
      );
      expect(none.user).toMatchObject({ locale: null, timeZone: null });
    },
  );

  storeTest.concurrent(
    'a time zone that is none is left out with a warning, the stored one kept',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, entriesSince } = await provisioned(store, sourced('ann'));
      const result = await provisioning.provision(sourced('ann', { timeZone: 'Mars/Olympus' }), 'directory');
      expect(result).toMatchObject({
        outcome: 'unchanged',
        warnings: ['timeZone: "Mars/Olympus" is not a time zone'],
      });
      expect((await store.users.findById(user.id))?.timeZone).toBe('Europe/Berlin');
      expect(await entriesSince()).toEqual([]);
    },
  );

  storeTest.concurrent(
    'disabled at the source: disabled here, sessions ended; enabled there again: enabled here; unsaid: left',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, entriesSince } = await provisioned(store, sourced('ann'));
      await store.sessions.create({ idHash: 'ann-1', userId: user.id, createdAt: T0, lastSeenAt: T0 });
      expect(
        (await provisioning.provision(sourced('ann', { disabled: true }), 'directory')).user.disabled,
      ).toBe(true);
      expect(await store.sessions.listOpenOfUser(user.id)).toEqual([]);
      expect(
        (await provisioning.provision(sourced('ann', { disabled: undefined }), 'directory')).outcome,
      ).toBe('unchanged');
      expect((await provisioning.provision(sourced('ann'), 'directory')).user.disabled).toBe(false);
      expect(await entriesSince()).toEqual([
        {
          event: 'user.disabled',
          actor: 'directory',
          details: { source: 'ldap', sessionsEnded: 1, registrationSessionsEnded: 0 },
        },
        { event: 'user.enabled', actor: 'directory', details: { source: 'ldap' } },
      ]);
    },
  );

  storeTest.concurrent(
    'a changed address replaces the channel and one given as none removes it, each audited by key, never by address',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, entriesSince, channelsOf } = await provisioned(store, sourced('ann'));
      const result = await provisioning.provision(
        sourced('ann', { channels: { email: 'ann.berg@example.com', mobile: null } }),
        'directory',
      );
      expect(result.outcome).toBe('updated');
      expect(await channelsOf()).toEqual([['email', 'ann.berg@example.com']]);
      const entries = await entriesSince();
      expect(entries).toEqual([
        { event: 'channel.set', actor: 'directory', details: { source: 'ldap', key: 'email' } },
        { event: 'channel.removed', actor: 'directory', details: { source: 'ldap', key: 'mobile' } },
      ]);
      expect(JSON.stringify(entries)).not.toContain('example.com');
    },
  );

  storeTest.concurrent(
    'an address that is no address is left out with a warning, and the channel it was is removed',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, channelsOf } = await provisioned(store, sourced('ann'));
      const result = await provisioning.provision(
        sourced('ann', { channels: { email: 'ann@example.com', mobile: 'call me' } }),
        'directory',
      );
      expect(result.warnings).toEqual(['mobile: "call me" is not a usable address; left out']);
      expect(await channelsOf()).toEqual([['email', 'ann@example.com']]);
    },
  );

  storeTest.concurrent(
    "a key the source does not name keeps the person's channel of it",
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, channelsOf } = await provisioned(store, sourced('ann'));
      await store.channels.set({
        id: 'own',
        userId: user.id,
        key: 'personalEmail',
        address: 'ann@home.example',
        createdAt: T0,
      });
      await provisioning.provision(sourced('ann', { channels: { email: 'ann@example.com' } }), 'directory');
      expect((await channelsOf()).sort()).toEqual([
        ['email', 'ann@example.com'],
        ['mobile', '+491705550123'],
        ['personalEmail', 'ann@home.example'],
      ]);
    },
  );

  storeTest.concurrent(
    'the source moves the person between the groups it manages and leaves the others alone',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, user, entriesSince, groupsOf } = await provisioned(store, sourced('ann'));
      const { groups } = identityOf(store, () => T0);
      const local = await groups.create({ name: 'Pilots', priority: 0 }, { door: 'local', actor: 'cli' });
      await groups.changeMember(local, user.id, true, { door: 'local', actor: 'cli' });
      const moved = await provisioning.provision(
        sourced('ann', { groups: { managed: ['Staff', 'VPN'], memberOf: ['VPN'] } }),
        'directory',
      );
      expect(moved.outcome).toBe('updated');
      expect(await groupsOf()).toEqual(['Pilots', 'VPN']);
      expect((await entriesSince()).map((entry) => [entry.event, entry.details.group])).toEqual([
        ['group.member_removed', 'Staff'],
        ['group.member_added', 'VPN'],
      ]);
    },
  );

  storeTest.concurrent(
    'a group the source names that is not there yet is made for it, owned by that source',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, groupsOf } = await provisioned(store, sourced('ann'));
      await provisioning.provision(
        sourced('ann', { groups: { managed: ['Staff', 'Night Shift'], memberOf: ['Staff', 'Night Shift'] } }),
        'directory',
      );
      expect(await groupsOf()).toEqual(['Night Shift', 'Staff']);
      expect(await store.groups.findByName('Night Shift')).toMatchObject({ source: 'ldap', priority: 0 });
      expect(await store.audit.list({ event: 'group.created', limit: 10 })).toMatchObject([
        { actor: 'directory', details: { group: 'Night Shift', source: 'ldap' } },
        { actor: 'directory', details: { group: 'Staff', source: 'ldap' } },
      ]);
    },
  );

  storeTest.concurrent(
    "SCIM's profile parts change with the full name, and only those that differ are audited",
    async ({ testStore: { store }, expect }) => {
      const scim = (profile: SourcedUser['profile']) =>
        sourced('sam', { source: 'scim', groups: { managed: [], memberOf: [] }, channels: {}, profile });
      const { provisioning, entriesSince } = await provisioned(
        store,
        scim({ givenName: 'Sam', familyName: 'Berg', displayName: null }),
      );
      const result = await provisioning.provision(
        scim({ givenName: 'Sam', familyName: 'Lind', displayName: 'Sam L.' }),
        'scim:idp',
      );
      expect(result.user).toMatchObject({ givenName: 'Sam', familyName: 'Lind', displayName: 'Sam L.' });
      expect((await entriesSince()).map((entry) => entry.details)).toEqual([
        { source: 'scim', fields: ['familyName', 'displayName'] },
      ]);
    },
  );
});
