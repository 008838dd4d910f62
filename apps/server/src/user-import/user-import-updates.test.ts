import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { verifyPassword } from '../crypto/password-hash.js';
import { storeSnapshot } from '../testing/cli.js';
import { cliTest } from '../testing/fixtures.js';
import { STORE_KINDS } from '../testing/stores.js';
import { channelsOf, groupsOf, importFiles } from './user-import-fixture.js';

const file = importFiles();

describe.each(STORE_KINDS)('dea user import over the users there on %s', (kind) => {
  cliTest.override('storeKind', kind);

  cliTest(
    '--disable-missing disables imported users the file no longer lists and ends their sessions; others stay',
    async ({ cli, expect }) => {
      const localId = await cli.addUser('local.admin');
      await cli.run(['user', 'import', file('a.csv', 'username,fullName\nkeep,Keep\ngone,Gone\n')]);
      const gone = await cli.store.users.findByUsername(usernameOrThrow('gone'));
      await cli.store.sessions.create({
        idHash: 'session-of-gone',
        userId: gone?.id ?? '',
        createdAt: Date.now(),
        lastSeenAt: Date.now(),
      });
      const result = await cli.run([
        'user',
        'import',
        file('b.csv', 'username,fullName\nkeep,Keep\n'),
        '--disable-missing',
      ]);
      expect(result.out).toContain('0 created, 0 updated, 1 disabled, 1 unchanged');
      expect(await cli.store.users.findByUsername(usernameOrThrow('gone'))).toMatchObject({ disabled: true });
      expect((await cli.store.sessions.find('session-of-gone'))?.endedAt).toEqual(expect.any(Number));
      expect(await cli.store.audit.list({ event: 'user.disabled' })).toMatchObject([
        {
          userId: gone?.id,
          actor: 'cli:import',
          details: { source: 'import', reason: 'not in source', sessionsEnded: 1 },
        },
      ]);
      expect(await cli.store.users.findById(localId)).toMatchObject({ disabled: false, source: 'local' });
    },
  );

  cliTest('enables a user it disabled once the file lists them again', async ({ cli, expect }) => {
    await cli.run(['user', 'import', file('a.csv', 'username,fullName\nkeep,Keep\ngone,Gone\n')]);
    await cli.run(['user', 'import', file('b.csv', 'username,fullName\nkeep,Keep\n'), '--disable-missing']);
    expect(await cli.store.users.findByUsername(usernameOrThrow('gone'))).toMatchObject({ disabled: true });
    expect(
      (await cli.run(['user', 'import', file('c.csv', 'username,fullName\nkeep,Keep\ngone,Gone\n')])).out,
    ).toContain('1 updated');
    expect(await cli.store.users.findByUsername(usernameOrThrow('gone'))).toMatchObject({
      disabled: false,
    });
  });

  cliTest(
    'upserts by user name: a local user is taken over with their password and put in --group; a directory user is refused',
    async ({ cli, expect }) => {
      await cli.run(['group', 'add', '--name', 'VPN', '--priority', '1']);
      const localId = await cli.addUser('kim');
      await cli.store.users.create({
        id: 'ldap-user',
        username: usernameOrThrow('lee'),
        passwordHash: '!',
        fullName: 'Lee',
        locale: 'en',
        createdAt: Date.now(),
        source: 'ldap',
        externalId: 'uuid-lee',
      });
      const result = await cli.run([
        'user',
        'import',
        file('a.csv', 'username,fullName,mobile\nkim,Kim Park,+4917055503\nlee,Lee,\n'),
        '--group',
        'VPN',
        '--skip-invalid',
      ]);
      expect(result.out).toContain(
        'skipped line 3 (lee): lee comes from ldap; the import cannot change that user',
      );
      expect(result.out).toContain('0 created, 1 updated');
      const kim = await cli.store.users.findById(localId);
      expect(kim).toMatchObject({ source: 'import', externalId: 'kim', fullName: 'Kim Park' });
      expect(await verifyPassword('correct horse', kim?.passwordHash ?? '')).toBe(true);
      expect(await groupsOf(cli, 'kim')).toEqual(['VPN']);
      expect(await channelsOf(cli, 'lee')).toEqual({});
    },
  );

  cliTest('refuses a --group that names no group', async ({ cli, expect }) => {
    await cli.addUser('kim');
    expect(
      await cli.run(['user', 'import', file('a.csv', 'username\nkim\n'), '--group', 'Nope']),
    ).toMatchObject({
      code: 2,
      err: expect.stringContaining('--group: no group named "Nope"'),
    });
  });

  cliTest(
    'checks every batch of the file before writing any: a repeated name or a bad row in a later batch stops it all',
    async ({ cli, expect }) => {
      const env = { DEA_PROVISION_BATCH_SIZE: '2' };
      const lines = ['username,fullName'];
      for (let index = 0; index < 7; index += 1) lines.push(`p${index},Person ${index}`);
      const repeated = file('repeated.csv', [...lines, 'p1,Again', 'q,Q'].join('\n'));
      const before = await storeSnapshot(cli.store);
      const refused = await cli.run(['user', 'import', repeated], { env });
      expect(refused.out.split('\n')).toEqual([
        'invalid line 9 (p1): the user name p1 is also on line 3',
        'Nothing imported: 1 of 9 rows are invalid. Correct them, or import the others with --skip-invalid.',
      ]);
      const badLast = file('bad-last.csv', [...lines, 'nofull,'].join('\n'));
      expect((await cli.run(['user', 'import', badLast], { env })).out.split('\n')).toEqual([
        'invalid line 9 (nofull): fullName is needed for a new user',
        'Nothing imported: 1 of 8 rows are invalid. Correct them, or import the others with --skip-invalid.',
      ]);
      expect(await storeSnapshot(cli.store)).toEqual(before);

      const skipped = await cli.run(['user', 'import', repeated, '--skip-invalid'], { env });
      expect(skipped.out).toContain('skipped line 9 (p1): the user name p1 is also on line 3');
      expect(skipped.out).toContain('8 created, 0 updated, 0 disabled, 0 unchanged, 1 skipped, 0 failed');
      expect((await cli.store.users.findByUsername(usernameOrThrow('p1')))?.fullName).toBe('Person 1');
      expect((await cli.run(['user', 'import', repeated, '--skip-invalid'], { env })).out).toContain(
        '0 created, 0 updated, 0 disabled, 8 unchanged, 1 skipped, 0 failed',
      );
    },
  );

  cliTest('two imports of the same file at once create each user exactly once', async ({ cli, expect }) => {
    const lines = ['username,fullName,email'];
    for (let index = 0; index < 60; index += 1) lines.push(`p${index},Person ${index},p${index}@example.com`);
    const path = file('many.csv', lines.join('\n'));
    const results = await Promise.all([cli.run(['user', 'import', path]), cli.run(['user', 'import', path])]);
    expect(results.map((result) => [result.code, result.err, result.out.slice(0, 600)])).toEqual([
      [0, '', expect.any(String)],
      [0, '', expect.any(String)],
    ]);
    expect(await cli.store.users.count()).toBe(60);
    expect(await cli.store.audit.list({ event: 'user.created' })).toHaveLength(60);
    for (const username of ['p0', 'p59'])
      expect(Object.keys(await channelsOf(cli, username))).toEqual(['email']);
  });
});
