import { identityOf } from '../../testing/identity.js';
import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { storeTest } from '../../testing/fixtures.js';
import { recordPostgresQueries, recordSqliteRuns } from '../../testing/recorded-sql.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { Store } from '../../store/store.js';
import type { SourcedUser, UserProvisioning } from './provision-user.js';

const sourced = (index: number, extra: Partial<SourcedUser> = {}): SourcedUser => ({
  source: 'import',
  externalId: `person${index}`,
  username: `person${index}`,
  fullName: `Person ${index}`,
  disabled: false,
  channels: { email: `person${index}@example.com` },
  groups: { managed: ['Staff'], memberOf: index % 2 === 0 ? ['Staff'] : [] },
  ...extra,
});

/** The commits the store is asked for while `work` runs (this test's store alone runs meanwhile). */
async function commitsDuring(store: Store, work: () => Promise<unknown>): Promise<number> {
  const isCommit = (text: string) => /^\s*commit\b/i.test(text);
  if (store.kind === 'postgres') {
    const recording = recordPostgresQueries();
    try {
      await work();
    } finally {
      recording.stop();
    }
    return recording.queries.filter((query) => isCommit(query.text)).length;
  }
  const recording = recordSqliteRuns();
  try {
    await work();
  } finally {
    recording.stop();
  }
  return recording.runs.filter(isCommit).length;
}

async function auditCount(store: Store, event: string): Promise<number> {
  return (await store.audit.list({ limit: 10_000 })).filter((entry) => entry.event === event).length;
}

describe.each(STORE_KINDS)('provisioning users in batches on %s', (kind) => {
  storeTest.override('storeKind', kind);

  storeTest(
    'writes a batch in one transaction, each user audited on their own; a refused user fails alone',
    { timeout: 300_000 },
    async ({ testStore: { store } }) => {
      await store.groups.create({ id: 'g-staff', name: 'Staff', priority: 1, createdAt: Date.now() });
      const provisioning = identityOf(store, Date.now).provisioning;
      // One new user alone: the user, their channels and groups in one transaction.
      const alone = await commitsDuring(store, () => provisioning.provision(sourced(0), 'test'));
      expect(alone).toBe(1);

      const batch = Array.from({ length: 60 }, (_, index) => sourced(index + 1));
      let results: Awaited<ReturnType<UserProvisioning['provisionBatch']>> = [];
      const commits = await commitsDuring(store, async () => {
        results = await provisioning.provisionBatch(batch, 'test');
      });
      expect(commits).toBe(1);
      expect(
        results.every((result) => 'provisioned' in result && result.provisioned.outcome === 'created'),
      ).toBe(true);
      // One entry a new person, naming their channels and groups (ADR 0044).
      expect(await auditCount(store, 'user.created')).toBe(61);
      expect(await auditCount(store, 'channel.set')).toBe(0);
      expect(await auditCount(store, 'group.member_added')).toBe(0);
      const staff = await store.groups.findByName('Staff');
      expect(await store.groups.listMembers(staff?.id ?? '')).toHaveLength(31);

      // A local user holds one name: that row is refused, the rest of its batch is written.
      await store.users.create({
        id: 'local-taken',
        username: usernameOrThrow('person70'),
        passwordHash: '!',
        fullName: 'Local',
        locale: 'en',
        timeZone: null,
        createdAt: Date.now(),
        source: 'local',
        externalId: null,
        givenName: null,
        familyName: null,
        primaryEmail: null,
        primaryPhone: null,
      });
      const mixed = await provisioning.provisionBatch(
        Array.from({ length: 20 }, (_, index) => sourced(index + 61)),
        'test',
      );
      expect(mixed.filter((result) => 'refused' in result)).toEqual([
        { refused: expect.objectContaining({ message: expect.stringContaining('belongs to a local user') }) },
      ]);
      expect(await auditCount(store, 'user.created')).toBe(80);
    },
  );

  storeTest(
    'two batches of the same users at once (two instances syncing) create each user exactly once',
    { timeout: 300_000 },
    async ({ testStore: { store } }) => {
      await store.groups.create({ id: 'g-staff', name: 'Staff', priority: 1, createdAt: Date.now() });
      const users = Array.from({ length: 40 }, (_, index) => sourced(index));
      const [one, two] = await Promise.all([
        identityOf(store, Date.now).provisioning.provisionBatch(users, 'one'),
        identityOf(store, Date.now).provisioning.provisionBatch(users, 'two'),
      ]);
      for (const results of [one, two]) expect(results.filter((result) => 'refused' in result)).toEqual([]);
      expect(await auditCount(store, 'user.created')).toBe(40);
      expect((await store.users.listOfSource('import')).length).toBe(40);
      const staff = await store.groups.findByName('Staff');
      expect(await store.groups.listMembers(staff?.id ?? '')).toHaveLength(20);
    },
  );
});
