import { usernameOrThrow } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import {
  type CliFixture,
  openCliFixture,
  storeSnapshot,
  expectRefusals,
  type Refusal,
} from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea channel on %s', (kind) => {
  let cli: CliFixture;
  let userId: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    userId = await cli.addUser('chris');
  });
  afterAll(() => cli.dispose());

  it('sets a channel of every type, replaces one and lists them with full addresses', async () => {
    // Stored canonically: phone numbers in E.164, e-mail domains in lower case.
    for (const [key, address, stored] of [
      ['mobile', '+49 170 5550112', '+491705550112'],
      ['telephone', '0049 (0)30 555-0156', '+49305550156'],
      ['email', 'chris.channel@Example.COM', 'chris.channel@example.com'],
      ['personalTwitter', '@chris_c', '@chris_c'],
    ]) {
      expect(await cli.run(['channel', 'set', 'chris', key ?? '', address ?? ''])).toMatchObject({
        code: 0,
        out: `Set ${key} of chris to ${stored}.`,
      });
    }
    const before = await cli.store.channels.listOfUser(userId);
    expect(await cli.run(['channel', 'set', 'chris', 'email', 'chris@example.org'])).toMatchObject({
      code: 0,
    });
    const after = await cli.store.channels.listOfUser(userId);
    // A new address gets a new reference: a page still holding the old one cannot send to it.
    const old = before.find((channel) => channel.key === 'email');
    const replaced = after.find((channel) => channel.key === 'email');
    expect(replaced).toMatchObject({ key: 'email', address: 'chris@example.org' });
    expect(replaced?.id).not.toBe(old?.id);

    const listed = await cli.run(['channel', 'list', 'chris']);
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')).toEqual([
      'mobile             +491705550112',
      'telephone          +49305550156',
      'email              chris@example.org',
      'personalTwitter    @chris_c',
    ]);
    const json = JSON.parse((await cli.run(['channel', 'list', 'chris', '--json'])).out) as unknown[];
    expect(json).toContainEqual(
      expect.objectContaining({ key: 'personalTwitter', type: 'TWITTER', address: '@chris_c' }),
    );
  });

  it("writes through the identity module: one audit entry, the person's updatedAt, their other channels told", async () => {
    const id = await cli.addUser('dana');
    const at = Date.UTC(2026, 2, 2, 10);
    expect(await cli.run(['channel', 'set', 'dana', 'mobile', '+49 170 5550199'], { now: at })).toMatchObject(
      {
        code: 0,
      },
    );
    expect((await cli.store.users.findById(id))?.updatedAt).toBe(at);
    // Her one channel so far: nobody else to tell.
    expect(await cli.store.audit.list({ userId: id, event: 'notice.sent' })).toEqual([]);
    expect(
      await cli.run(['channel', 'set', 'dana', 'email', 'dana@example.org'], { now: at + 1000 }),
    ).toMatchObject({ code: 0, out: 'Set email of dana to dana@example.org.' });
    expect(await cli.store.audit.list({ userId: id, event: 'channel.set' })).toMatchObject([
      { actor: 'cli', details: { key: 'email' } },
      { actor: 'cli', details: { key: 'mobile' } },
    ]);
    // The mobile is told of the new address, with the link that undoes it.
    expect(await cli.store.audit.list({ userId: id, event: 'notice.sent' })).toMatchObject([
      { details: { channelKey: 'mobile', about: 'channel.registered' } },
    ]);
    // The same address again changes nothing and tells no one.
    await cli.run(['channel', 'set', 'dana', 'email', 'dana@example.org'], { now: at + 2000 });
    expect(await cli.store.audit.list({ userId: id, event: 'channel.set' })).toHaveLength(2);
    expect(await cli.store.audit.list({ userId: id, event: 'notice.sent' })).toHaveLength(1);
    expect(await cli.run(['channel', 'remove', 'dana', 'email'], { now: at + 3000 })).toMatchObject({
      code: 0,
    });
    expect((await cli.store.users.findById(id))?.updatedAt).toBe(at + 3000);
  });

  it("refuses the channels of another source's user, naming it, and changes nothing", async () => {
    await cli.store.users.create({
      id: newId(),
      username: usernameOrThrow('sol'),
      passwordHash: '!',
      fullName: 'Sol',
      locale: 'en',
      createdAt: Date.now(),
      source: 'scim',
      externalId: 'sol-1',
    });
    const before = await storeSnapshot(cli.store);
    await expectRefusals(cli, [
      [
        ['channel', 'set', 'sol', 'email', 'sol@example.org'],
        1,
        "sol's channel list comes from the identity provider (SCIM)",
      ],
      [
        ['channel', 'remove', 'sol', 'email'],
        1,
        "sol's channel list comes from the identity provider (SCIM)",
      ],
    ]);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });

  it('removes a channel', async () => {
    expect(await cli.run(['channel', 'remove', 'chris', 'telephone'])).toMatchObject({
      code: 0,
      out: 'Removed telephone of chris.',
    });
    expect((await cli.store.channels.listOfUser(userId)).map((channel) => channel.key)).not.toContain(
      'telephone',
    );
    expect(await cli.run(['channel', 'list', 'nobody'])).toMatchObject({
      code: 1,
      err: 'no user named "nobody"',
    });
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const before = await storeSnapshot(cli.store);
    const refusals: Refusal[] = [
      [['channel', 'set', 'chris', 'fax', '+49 30 1234567'], 2, 'unknown channel key "fax" (one of mobile,'],
      [
        ['channel', 'set', 'chris', 'mobile', '0170 5550112'],
        2,
        'mobile needs an international phone number',
      ],
      [['channel', 'set', 'chris', 'personalTelephone', '+49 12'], 2, 'needs an international phone number'],
      [['channel', 'set', 'chris', 'mobile', 'chris@example.com'], 2, 'needs an international phone number'],
      [['channel', 'set', 'chris', 'email', 'chris.example.com'], 2, 'email needs an e-mail address'],
      [['channel', 'set', 'chris', 'personalEmail', 'a b@example.com'], 2, 'needs an e-mail address'],
      [['channel', 'set', 'chris', 'twitter', 'chris_c'], 2, 'twitter needs an X handle such as @name'],
      [['channel', 'set', 'chris', 'twitter', '@this_handle_is_too_long'], 2, 'needs an X handle'],
      [['channel', 'set', 'chris', 'email'], 2, 'missing <address>'],
      [['channel', 'set', 'chris', 'email', 'a@example.com', 'more'], 2, 'unexpected argument "more"'],
      [['channel', 'set', 'nobody', 'email', 'a@example.com'], 1, 'no user named "nobody"'],
      [['channel', 'remove', 'chris', 'telephone'], 1, 'chris has no telephone channel'],
      [['channel', 'remove', 'chris', 'pager'], 2, 'unknown channel key'],
      [['channel', 'remove', 'chris'], 2, 'missing <key>'],
      [['channel', 'list'], 2, 'missing <username>'],
    ];
    await expectRefusals(cli, refusals);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
