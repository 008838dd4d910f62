import { usernameOrThrow } from '@dea/contract';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../crypto/ids.js';
import { verifyPassword } from '../crypto/password-hash.js';
import { type CliFixture, openCliFixture, storeSnapshot } from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea user on %s', (kind) => {
  let cli: CliFixture;
  let folder: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    folder = mkdtempSync(join(tmpdir(), 'dea-cli-user-'));
    await cli.run(['group', 'add', '--name', 'Staff', '--priority', '5']);
  });
  afterAll(async () => {
    await cli.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  it('adds a user with the password from standard input, into a group', async () => {
    const result = await cli.run(
      [
        'user',
        'add',
        '--username',
        'alice',
        '--full-name',
        'Alice Example',
        '--locale',
        'de',
        '--group',
        'Staff',
        '--password-stdin',
      ],
      { stdin: 'a long password\n' },
    );
    expect(result).toMatchObject({ code: 0, out: expect.stringContaining('Added user alice') });
    const alice = await cli.store.users.findByUsername(usernameOrThrow('alice'));
    expect(alice).toMatchObject({ fullName: 'Alice Example', locale: 'de', disabled: false });
    expect(await verifyPassword('a long password', alice?.passwordHash ?? '')).toBe(true);
    const staff = await cli.store.groups.findByName('Staff');
    expect(await cli.store.groups.listMembers(staff?.id ?? '')).toEqual([alice?.id]);
    expect(await cli.store.audit.list({ event: 'user.created' })).toMatchObject([
      { userId: alice?.id, actor: 'cli', details: { username: 'alice' } },
    ]);
  });

  it('refuses a password file its group or others may read, naming it and chmod 600', async () => {
    const file = join(folder, 'open-password');
    writeFileSync(file, 'an open password\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const before = await storeSnapshot(cli.store);
    for (const argv of [
      ['user', 'add', '--username', 'opal', '--full-name', 'Opal', '--password-file', file],
      ['user', 'set-password', 'alice', '--password-file', file],
    ]) {
      expect(await cli.run(argv)).toEqual({
        code: 1,
        out: '',
        err: `the password file ${file} may be read by others than its owner (mode 0644): refused, as ssh refuses such a key; run chmod 600 ${file}`,
      });
    }
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });

  it('adds a user with the password from a file and lists the users', async () => {
    const file = join(folder, 'password');
    writeFileSync(file, 'another password\n', { mode: 0o600 });
    expect(
      await cli.run(['user', 'add', '--username', 'bob', '--full-name', 'Bob', '--password-file', file]),
    ).toMatchObject({ code: 0 });
    const bob = await cli.store.users.findByUsername(usernameOrThrow('bob'));
    expect(await verifyPassword('another password', bob?.passwordHash ?? '')).toBe(true);
    expect(bob?.locale).toBe('en');

    const listed = await cli.run(['user', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('alice  "Alice Example"  locale de  time zone UTC (default)  groups Staff');
    expect(listed.out).toContain('bob  "Bob"  locale en  time zone UTC (default)  groups -');
    const json = JSON.parse((await cli.run(['user', 'list', '--json'])).out) as Record<string, unknown>[];
    expect(json.map((user) => user.username)).toEqual(['alice', 'bob']);
    expect(json[0]).toMatchObject({ fullName: 'Alice Example', groups: ['Staff'], disabled: false });
    expect(JSON.stringify(json)).not.toContain('scrypt');
  });

  it('sets a time zone of its own, back to the default, and refuses one that does not exist', async () => {
    expect(await cli.run(['user', 'update', 'alice', '--time-zone', 'Europe/Berlin'])).toMatchObject({
      code: 0,
    });
    expect((await cli.store.users.findByUsername(usernameOrThrow('alice')))?.timeZone).toBe('Europe/Berlin');
    expect((await cli.run(['user', 'list'])).out).toContain(
      'alice  "Alice Example"  locale de  time zone Europe/Berlin',
    );
    expect(await cli.run(['user', 'update', 'alice', '--time-zone', 'Mars/Olympus'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--time-zone "Mars/Olympus" is not a time zone'),
    });
    expect(await cli.run(['user', 'update', 'alice', '--time-zone', 'default'])).toMatchObject({ code: 0 });
    expect((await cli.store.users.findByUsername(usernameOrThrow('alice')))?.timeZone).toBeNull();
  });

  it('updates, sets the locale and the password, disables and enables', async () => {
    expect(await cli.run(['user', 'update', 'bob', '--full-name', 'Bob Builder'])).toMatchObject({ code: 0 });
    expect(await cli.run(['user', 'set-locale', 'bob', 'pt_BR'])).toMatchObject({ code: 0 });
    expect(
      await cli.run(['user', 'set-password', 'bob', '--password-stdin'], { stdin: 'third password' }),
    ).toMatchObject({
      code: 0,
      out: 'Set the password of bob; 0 sessions ended.',
    });
    let bob = await cli.store.users.findByUsername(usernameOrThrow('bob'));
    expect(bob).toMatchObject({ fullName: 'Bob Builder', locale: 'pt_BR' });
    expect(await verifyPassword('third password', bob?.passwordHash ?? '')).toBe(true);

    expect(await cli.run(['user', 'disable', 'bob'])).toMatchObject({
      code: 0,
      out: 'Disabled user bob; 0 sessions ended.',
    });
    expect((await cli.store.users.findByUsername(usernameOrThrow('bob')))?.disabled).toBe(true);
    expect((await cli.run(['user', 'list'])).out).toContain('DISABLED');
    expect(await cli.run(['user', 'enable', 'bob'])).toMatchObject({ code: 0 });
    bob = await cli.store.users.findByUsername(usernameOrThrow('bob'));
    expect(bob?.disabled).toBe(false);
  });

  it('unlocks a user locked by failed verifications', async () => {
    const bob = await cli.store.users.findByUsername(usernameOrThrow('bob'));
    await cli.store.verifyFailures.record(bob?.id ?? '', Date.now(), { lockAfter: 1, lockMs: null });
    expect(await cli.run(['user', 'unlock', 'bob'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('Unlocked bob'),
    });
    expect(await cli.store.verifyFailures.find(bob?.id ?? '')).toBeUndefined();
    expect(await cli.run(['user', 'unlock', 'bob'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('no failed'),
    });
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const before = await storeSnapshot(cli.store);
    const refusals: [string[], number, string, string?][] = [
      [['user', 'add', '--full-name', 'X', '--password-stdin'], 2, '--username is required'],
      [['user', 'add', '--username', 'carol', '--password-stdin'], 2, '--full-name is required'],
      [
        ['user', 'add', '--username', 'two words', '--full-name', 'X', '--password-stdin'],
        2,
        'may not contain a space',
      ],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--locale', 'German', '--password-stdin'],
        2,
        'not a language code',
      ],
      [['user', 'add', '--username', 'carol', '--full-name', 'X'], 2, '--password-stdin or --password-file'],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--password', 'secret'],
        2,
        "Unknown option '--password'",
      ],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--password-stdin'],
        2,
        '8 to 1024 characters',
        'short',
      ],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--password-stdin'],
        2,
        'single line',
        'one\ntwo lines\n',
      ],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--password-file', '/nonexistent/pw'],
        1,
        'cannot read the password file',
      ],
      [
        ['user', 'add', '--username', 'carol', '--full-name', 'X', '--group', 'Nobody', '--password-stdin'],
        1,
        'no group named "Nobody"',
        'long enough password',
      ],
      [
        ['user', 'add', '--username', 'alice', '--full-name', 'X', '--password-stdin'],
        1,
        'a user named "alice" already exists',
        'long enough password',
      ],
      [['user', 'update', 'nobody', '--locale', 'fr'], 1, 'no user named "nobody"'],
      [['user', 'update', 'bob'], 2, 'nothing to change'],
      [['user', 'update', 'bob', '--locale', 'f'], 2, 'not a language code'],
      [['user', 'update'], 2, 'missing <username>'],
      [['user', 'set-locale', 'bob'], 2, 'missing <locale>'],
      [['user', 'set-locale', 'nobody', 'fr'], 1, 'no user named'],
      [['user', 'set-password', 'nobody', '--password-stdin'], 1, 'no user named', 'long enough password'],
      [['user', 'disable', 'nobody'], 1, 'no user named "nobody"'],
      [['user', 'enable'], 2, 'missing <username>'],
      [['user', 'remove', 'bob', 'alice'], 2, 'unexpected argument "alice"'],
      [['user', 'remove', 'nobody'], 1, 'no user named'],
      [['user', 'unlock', 'nobody'], 1, 'no user named'],
      [['user', 'list', 'extra'], 2, 'unexpected argument'],
      [['user', 'rename', 'bob'], 2, 'Unknown command: dea user rename'],
    ];
    for (const [argv, code, message, stdin] of refusals) {
      const result = await cli.run(argv, { stdin: stdin ?? 'long enough password' });
      expect({ argv, ...result }).toMatchObject({
        argv,
        code,
        out: '',
        err: expect.stringContaining(message),
      });
      expect(result.err.split('\n')).toHaveLength(1);
    }
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });

  it('removes a user with their channels; the audit log keeps their entries', async () => {
    const bob = await cli.store.users.findByUsername(usernameOrThrow('bob'));
    expect(await cli.run(['channel', 'set', 'bob', 'email', 'bob@example.com'])).toMatchObject({ code: 0 });
    expect(await cli.run(['user', 'remove', 'bob'])).toMatchObject({ code: 0, out: 'Removed user bob.' });
    expect(await cli.store.users.findByUsername(usernameOrThrow('bob'))).toBeUndefined();
    expect(await cli.store.channels.listOfUser(bob?.id ?? '')).toEqual([]);
    const audit = await cli.run(['audit', 'list', '--user', bob?.id ?? '']);
    expect(audit.out).toContain('user.removed');
    expect(audit.out).toContain('user.created');
  });

  it("cannot change what another source owns: a SCIM user's full name, a directory user's password", async () => {
    const id = newId();
    await cli.store.users.create({
      id,
      username: usernameOrThrow('sam'),
      passwordHash: '!',
      fullName: 'Sam From Okta',
      locale: 'en',
      createdAt: Date.now(),
      source: 'scim',
      externalId: '00u-sam',
    });
    await cli.store.users.create({
      id: newId(),
      username: usernameOrThrow('lee'),
      passwordHash: '!',
      fullName: 'Lee From LDAP',
      locale: 'en',
      createdAt: Date.now(),
      source: 'ldap',
      externalId: 'entry-uuid-lee',
    });
    const before = await storeSnapshot(cli.store);
    expect(await cli.run(['user', 'update', 'sam', '--full-name', 'Sam Changed'])).toEqual({
      code: 1,
      out: '',
      err: "sam's full name comes from the identity provider (SCIM); change it there",
    });
    expect(
      await cli.run(['user', 'set-password', 'lee', '--password-stdin'], { stdin: 'long enough password' }),
    ).toMatchObject({
      code: 1,
      err: expect.stringContaining("lee's password is the directory's (DEA_LDAP_URL)"),
    });
    expect(await storeSnapshot(cli.store)).toEqual(before);
    expect(await cli.store.audit.list({ userId: id })).toEqual([]);
    // The administrators keep the levers of an emergency on every user.
    expect(await cli.run(['user', 'disable', 'sam'])).toMatchObject({ code: 0 });
    expect(await cli.run(['user', 'update', 'sam', '--locale', 'fr'])).toMatchObject({ code: 1 });
  });

  it('shows help for the group and a command', async () => {
    expect(await cli.run(['user', '--help'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('dea user set-password'),
    });
    expect(await cli.run(['user', 'add', '--help'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('Usage: dea user add --username NAME'),
    });
  });
});
