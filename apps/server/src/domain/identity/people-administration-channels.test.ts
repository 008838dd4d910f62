import { consoleCallerOf } from '../../testing/identity.js';
import { POLICY_CATEGORY_HELP_DESK, usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { composeDomain } from '../../composition.js';
import { newId } from '../../crypto/ids.js';
import { openOutboxMessage } from '../../delivery/outbox-provider.js';
import { Metrics } from '../../observability/metrics.js';
import type { ConsoleRole, Store, UserSource } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { STORE_KINDS, TEST_STORE_KEYS } from '../../testing/stores.js';
import { testConfig } from '../../testing/test-app.js';
import { ensureBuiltInContent } from '../../seed/built-in-content.js';
import { RequestTurns } from '../bulkheads.js';
import type { ConsoleCaller } from '../console/console-auth.js';

const T0 = Date.UTC(2026, 0, 5, 9);
const CLIENT = '198.51.100.7';
const OPERATOR = { door: 'local', actor: 'cli' } as const;

/**
 * The domain as the composition root builds it over the test's store (delivery to the outbox),
 * and what a test of an agent's change of a person's channels reads back.
 */
function domainOf(store: Store) {
  const services = composeDomain({
    config: testConfig(),
    store,
    keys: TEST_STORE_KEYS,
    now: () => T0,
    log: { warn: () => undefined, info: () => undefined },
    metrics: new Metrics(),
    auditExport: undefined,
    requestTurns: new RequestTurns(),
    decoyPasswordHash: () => Promise.resolve(''),
  });
  const administration = services.peopleAdministration;
  /** The code last sent to an address, as the person reads it out to the agent. */
  const codeSentTo = async (userId: string, recipient: string): Promise<string> => {
    const sent = (await store.outbox.list(100, userId))
      .map((message) => openOutboxMessage([TEST_STORE_KEYS.seal], message))
      .find((message) => message.recipient === recipient);
    const code = /\b(\d{8})\b/.exec(sent?.text ?? '')?.[1];
    if (code === undefined) throw new Error(`no code sent to ${recipient}`);
    return code;
  };
  const channelsOf = async (userId: string) =>
    (await store.channels.listOfUser(userId)).map((channel) => [channel.key, channel.address]);
  return { services, administration, codeSentTo, channelsOf };
}

const callerOf = (role: ConsoleRole, scope: readonly string[] | null = null): ConsoleCaller =>
  consoleCallerOf(role, T0, { scope });

/** A user with an e-mail channel, in a group of that name (with a "Help Desk" policy naming `issuers`, when given). */
async function personIn(
  store: Store,
  username: string,
  group: string,
  options: { source?: UserSource; issuers?: string[] } = {},
): Promise<string> {
  const id = newId(T0);
  const source = options.source ?? 'local';
  await store.users.create({
    id,
    username: usernameOrThrow(username),
    passwordHash: 'hash',
    fullName: username,
    locale: 'en',
    createdAt: T0,
    source,
    externalId: source === 'local' ? null : `ext-${username}`,
  });
  const { groups } = domainOf(store).services;
  const made = await groups.named(group, OPERATOR);
  await groups.changeMember(made, id, true, OPERATOR);
  if (options.issuers !== undefined)
    await groups.setPolicy(
      made,
      { category: POLICY_CATEGORY_HELP_DESK, options: { issuers: options.issuers }, changes: {} },
      OPERATOR,
      false,
    );
  await store.channels.set({
    id: newId(T0),
    userId: id,
    key: 'email',
    address: `${username}@example.com`,
    createdAt: T0,
  });
  return id;
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(STORE_KINDS)("an agent changes a person's channels in the console, on %s", (kind) => {
  storeTest.override('storeKind', kind);

  storeTest.concurrent(
    'an address proven by the code the person reads out becomes their channel, audited with the agent',
    async ({ testStore: { store }, expect }) => {
      const { administration, codeSentTo, channelsOf } = domainOf(store);
      // The texts of the messages, which the code is read from.
      await ensureBuiltInContent(store);
      const admin = callerOf('admin');
      const olga = await personIn(store, 'olga', 'Staff');
      const started = await administration.startChannelProof(
        admin,
        olga,
        { key: 'mobile', address: '+49 170 5550161' },
        CLIENT,
      );
      expect(started.to).not.toContain('5550161');
      expect(await channelsOf(olga)).toEqual([['email', 'olga@example.com']]);
      const code = await codeSentTo(olga, '+491705550161');
      const proven = await administration.proveChannel(
        admin,
        olga,
        { proofId: started.proofId, code },
        CLIENT,
      );
      expect(proven).toEqual({ changed: ['channels.mobile'], sessionsEnded: 0 });
      expect(await channelsOf(olga)).toEqual([
        ['email', 'olga@example.com'],
        ['mobile', '+491705550161'],
      ]);
      expect(await store.audit.list({ userId: olga, event: 'channel.registered' })).toMatchObject([
        { actor: `console:${admin.account.username}`, details: { key: 'mobile', origin: 'console' } },
      ]);
    },
  );

  storeTest.concurrent(
    'a changed address stays the old one until the new one is proven, then replaces it under a new reference',
    async ({ testStore: { store }, expect }) => {
      const { administration, codeSentTo, channelsOf } = domainOf(store);
      await ensureBuiltInContent(store);
      const admin = callerOf('admin');
      const olga = await personIn(store, 'olga', 'Staff');
      const [before] = await store.channels.listOfUser(olga);
      const started = await administration.startChannelProof(
        admin,
        olga,
        { key: 'email', address: 'olga.new@example.com' },
        CLIENT,
      );
      expect(await channelsOf(olga)).toEqual([['email', 'olga@example.com']]);
      const code = await codeSentTo(olga, 'olga.new@example.com');
      await administration.proveChannel(admin, olga, { proofId: started.proofId, code }, CLIENT);
      const after = await store.channels.listOfUser(olga);
      expect(after.map((channel) => [channel.key, channel.address])).toEqual([
        ['email', 'olga.new@example.com'],
      ]);
      // A page holding the old reference cannot send to the new address.
      expect(after[0]?.id).not.toBe(before?.id);
    },
  );

  storeTest.concurrent(
    "an agent's proof is not the person's: their own door neither ends it nor takes its tries",
    async ({ testStore: { store }, expect }) => {
      const { services, administration, codeSentTo } = domainOf(store);
      await ensureBuiltInContent(store);
      const olga = await personIn(store, 'olga', 'Staff');
      const started = await administration.startChannelProof(
        callerOf('admin'),
        olga,
        { key: 'personalEmail', address: 'olga@home.example' },
        CLIENT,
      );
      const code = await codeSentTo(olga, 'olga@home.example');
      const user = (await store.users.findById(olga))!;
      const byOwner = { user, actor: olga, clientAddress: CLIENT, origin: 'owner' as const };
      expect(await services.channelProofs.list(user)).not.toContainEqual(
        expect.objectContaining({ state: 'pending' }),
      );
      expect(
        await refusalOf(services.channelProofs.prove({ ...byOwner, proofId: started.proofId, code })),
      ).toMatchObject({
        errorNumber: 3,
      });
      const proof = await store.channelProofs.findOfUser(olga, started.proofId);
      expect(proof?.triesLeft).toBe(services.config.channelRegistration.proofTries);
      expect((await store.channels.listOfUser(olga)).map((channel) => channel.key)).toEqual(['email']);
    },
  );

  storeTest.concurrent(
    'of ten right codes at once, one makes the channel: one entry, one notice',
    async ({ testStore: { store }, expect }) => {
      const { administration, codeSentTo, channelsOf } = domainOf(store);
      await ensureBuiltInContent(store);
      const admin = callerOf('admin');
      const pia = await personIn(store, 'pia', 'Staff');
      const started = await administration.startChannelProof(
        admin,
        pia,
        { key: 'personalEmail', address: 'pia@home.example' },
        CLIENT,
      );
      const code = await codeSentTo(pia, 'pia@home.example');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          administration.proveChannel(admin, pia, { proofId: started.proofId, code }, CLIENT),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(await channelsOf(pia)).toEqual([
        ['email', 'pia@example.com'],
        ['personalEmail', 'pia@home.example'],
      ]);
      expect(await store.audit.list({ userId: pia, event: 'channel.registered' })).toHaveLength(1);
      const told = (await store.outbox.list(100, pia))
        .map((message) => openOutboxMessage([TEST_STORE_KEYS.seal], message))
        .filter((message) => message.recipient === 'pia@example.com');
      expect(told).toHaveLength(1);
      // The other channel is told with a link that undoes it, never with the code.
      expect(told[0]?.text).toContain('#undo=');
      expect(told[0]?.text).not.toContain(code);
    },
  );

  storeTest.concurrent(
    'a removal answers the key it removed, and nothing when there was none',
    async ({ testStore: { store }, expect }) => {
      const { administration, channelsOf } = domainOf(store);
      const admin = callerOf('admin');
      const olga = await personIn(store, 'olga', 'Staff');
      expect(await administration.removeChannel(admin, olga, 'email', CLIENT)).toEqual({
        changed: ['channels.email'],
        sessionsEnded: 0,
      });
      expect(await administration.removeChannel(admin, olga, 'email', CLIENT)).toEqual({
        changed: [],
        sessionsEnded: 0,
      });
      expect(await channelsOf(olga)).toEqual([]);
      expect(await store.audit.list({ userId: olga, event: 'channel.removed' })).toMatchObject([
        { actor: `console:${admin.account.username}`, details: { key: 'email', origin: 'console' } },
      ]);
    },
  );

  storeTest.concurrent(
    'a help-desk agent reaches the users of their scope only: one outside is answered as missing, and nothing is sent or changed',
    async ({ testStore: { store }, expect }) => {
      const { administration, channelsOf } = domainOf(store);
      const agent = callerOf('helpdesk', ['Staff EU']);
      const inside = await personIn(store, 'inga', 'Staff EU');
      const outside = await personIn(store, 'otto', 'Staff US');
      for (const change of [
        () =>
          administration.startChannelProof(
            agent,
            outside,
            { key: 'mobile', address: '+49 170 5550162' },
            CLIENT,
          ),
        () => administration.proveChannel(agent, outside, { proofId: 'x', code: '12345678' }, CLIENT),
        () => administration.removeChannel(agent, outside, 'email', CLIENT),
      ])
        expect(await refusalOf(change())).toMatchObject({ kind: 'missing' });
      expect(await channelsOf(outside)).toEqual([['email', 'otto@example.com']]);
      expect(await store.outbox.list(100, outside)).toEqual([]);
      expect(await store.channelProofs.listOfUser(outside)).toEqual([]);
      expect(await administration.removeChannel(agent, inside, 'email', CLIENT)).toMatchObject({
        changed: ['channels.email'],
      });
    },
  );

  storeTest.concurrent(
    'an auditor never changes channels, nor a help-desk agent whose "Help Desk" policy leaves their role out',
    async ({ testStore: { store }, expect }) => {
      const { administration, channelsOf } = domainOf(store);
      const usual = await personIn(store, 'ulla', 'Staff');
      const adminsOnly = await personIn(store, 'vera', 'Board', { issuers: ['admin'] });
      const auditor = callerOf('auditor');
      const helpdesk = callerOf('helpdesk');
      for (const [caller, userId] of [
        [auditor, usual],
        [helpdesk, adminsOnly],
      ] as const)
        expect(await refusalOf(administration.removeChannel(caller, userId, 'email', CLIENT))).toMatchObject({
          kind: 'forbidden',
        });
      expect(await channelsOf(adminsOnly)).toEqual([['email', 'vera@example.com']]);
      expect(await channelsOf(usual)).toEqual([['email', 'ulla@example.com']]);
      // The policy names the administrators: they keep it; without a policy the help desk may.
      expect(
        (await administration.removeChannel(callerOf('admin'), adminsOnly, 'email', CLIENT)).changed,
      ).toEqual(['channels.email']);
      expect((await administration.removeChannel(helpdesk, usual, 'email', CLIENT)).changed).toEqual([
        'channels.email',
      ]);
    },
  );

  storeTest.concurrent(
    "another source's person keeps their channels: refused as a conflict naming the owner, nothing sent",
    async ({ testStore: { store }, expect }) => {
      const { administration, channelsOf } = domainOf(store);
      const admin = callerOf('admin');
      const sam = await personIn(store, 'sam', 'Staff', { source: 'scim' });
      const start = await refusalOf(
        administration.startChannelProof(admin, sam, { key: 'mobile', address: '+49 170 5550172' }, CLIENT),
      );
      expect(start).toMatchObject({ kind: 'conflict' });
      expect((start as { params: { detail: string } }).params.detail).toMatch(
        /channel list comes from the identity provider \(SCIM\)/,
      );
      expect(await refusalOf(administration.removeChannel(admin, sam, 'email', CLIENT))).toMatchObject({
        kind: 'conflict',
      });
      expect(await channelsOf(sam)).toEqual([['email', 'sam@example.com']]);
      expect(await store.outbox.list(100, sam)).toEqual([]);
    },
  );

  storeTest.concurrent(
    'a user who is not there is missing for every channel change, whoever asks',
    async ({ testStore: { store }, expect }) => {
      const { administration } = domainOf(store);
      const gone = newId(T0);
      for (const caller of [callerOf('admin'), callerOf('helpdesk')])
        expect(await refusalOf(administration.removeChannel(caller, gone, 'email', CLIENT))).toMatchObject({
          kind: 'missing',
        });
    },
  );
});
