import { describe } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import type { BatchResult, SourcedUser } from './provision-user.js';

const T0 = Date.UTC(2026, 0, 5, 9);

const sourced = (name: string, extra: Partial<SourcedUser> = {}): SourcedUser => ({
  source: 'import',
  externalId: `id-${name}`,
  username: name,
  fullName: `Person ${name}`,
  disabled: false,
  channels: { email: `${name}@example.com` },
  groups: { managed: ['Staff'], memberOf: ['Staff'] },
  ...extra,
});

/** Each row's outcome, or the start of its refusal. */
const outcomesOf = (results: readonly BatchResult[]) =>
  results.map((result) =>
    'provisioned' in result ? result.provisioned.outcome : `refused: ${result.refused.message.slice(0, 40)}`,
  );

/** A batch's provisioning over the test's store, with ann and bob there already. */
async function withAnnAndBob(store: Store) {
  const { provisioning } = identityOf(store, () => T0);
  await provisioning.provisionBatch([sourced('ann'), sourced('bob')], 'import');
  const count = async () => ({
    users: (await store.users.list()).length,
    entries: (await store.audit.list({ limit: 1000 })).length,
  });
  return { provisioning, count };
}

describe.each(STORE_KINDS)("a batch's rows on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'a batch of known and new people answers one result a row, in order',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = await withAnnAndBob(store);
      const results = await provisioning.provisionBatch(
        [sourced('cid'), sourced('ann'), sourced('bob', { fullName: 'Bob B' }), sourced('dan')],
        'import',
      );
      expect(outcomesOf(results)).toEqual(['created', 'unchanged', 'updated', 'created']);
      expect(
        results.map((result) => ('provisioned' in result ? result.provisioned.user.username : '')),
      ).toEqual(['cid', 'ann', 'bob', 'dan']);
      expect((await store.users.findByExternalId('import', 'id-bob'))?.fullName).toBe('Bob B');
    },
  );

  storeTest.concurrent(
    'a person twice in a batch is created by the first row and brought up to date by the second',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const results = await provisioning.provisionBatch(
        [sourced('eve'), sourced('eve.renamed', { externalId: 'id-eve' })],
        'import',
      );
      expect(outcomesOf(results)).toEqual(['created', 'updated']);
      expect((await store.users.list()).map((user) => user.username)).toEqual(['eve.renamed']);
    },
  );

  storeTest.concurrent(
    'two new rows of one name and two ids: the first is created, the second refused alone',
    async ({ testStore: { store }, expect }) => {
      const { provisioning } = identityOf(store, () => T0);
      const results = await provisioning.provisionBatch(
        [sourced('fay'), sourced('fay', { externalId: 'id-fay-2' }), sourced('gus')],
        'import',
      );
      expect(outcomesOf(results)).toEqual([
        'created',
        'refused: the user name fay belongs to another imp',
        'created',
      ]);
      expect((await store.users.findByExternalId('import', 'id-fay'))?.username).toBe('fay');
      expect(await store.users.findByExternalId('import', 'id-fay-2')).toBeUndefined();
    },
  );

  storeTest.concurrent(
    'a dry run of a batch answers each row and writes nothing',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, count } = await withAnnAndBob(store);
      const before = await count();
      const results = await provisioning.provisionBatch(
        [sourced('cid'), sourced('ann', { disabled: true }), sourced('bob')],
        'import',
        { dryRun: true },
      );
      expect(outcomesOf(results)).toEqual(['created', 'updated', 'unchanged']);
      expect(await count()).toEqual(before);
      expect((await store.users.findByExternalId('import', 'id-ann'))?.disabled).toBe(false);
    },
  );

  storeTest.concurrent(
    'an import adopting a local user in a batch takes them over; the rows beside it are written too',
    async ({ testStore: { store }, expect }) => {
      const { provisioning, people } = identityOf(store, () => T0);
      const { user: lou } = await people.create(
        { door: 'local', actor: 'cli' },
        { username: 'lou', fullName: 'Lou' },
      );
      const results = await provisioning.provisionBatch([sourced('lou'), sourced('mia')], 'import', {
        adoptLocal: true,
      });
      expect(outcomesOf(results)).toEqual(['updated', 'created']);
      expect(await store.users.findById(lou.id)).toMatchObject({ source: 'import', externalId: 'id-lou' });
      // Without adopting, the same row is refused and the other row still comes in.
      await people.create({ door: 'local', actor: 'cli' }, { username: 'ned', fullName: 'Ned' });
      expect(
        outcomesOf(await provisioning.provisionBatch([sourced('ned'), sourced('ola')], 'import')),
      ).toEqual(['refused: the user name ned belongs to a local use', 'created']);
    },
  );
});
