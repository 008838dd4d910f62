import { usernameOrThrow } from '@dea/contract';
import { describe } from 'vitest';
import { type CliFixture, storeSnapshot } from '../testing/cli.js';
import { cliTest } from '../testing/fixtures.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { channelsOf, groupsOf, importFiles, PEOPLE_CSV } from './user-import-fixture.js';

const file = importFiles();

describe.each(DOOR_STORE_KINDS)('dea user import of a file on %s', (kind) => {
  cliTest.override('storeKind', kind);

  /** The Staff group, then PEOPLE_CSV imported into it: the file's path and the import's outcome. */
  async function importPeople(cli: CliFixture) {
    await cli.run(['group', 'add', '--name', 'Staff', '--priority', '5']);
    const path = file('people.csv', PEOPLE_CSV);
    return { path, first: await cli.run(['user', 'import', path]) };
  }

  cliTest('creates the users of a file with their fields, channels and groups', async ({ cli, expect }) => {
    const { first } = await importPeople(cli);
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toMatch(
      /Imported .*people\.csv: 3 created, 0 updated, 0 disabled, 0 unchanged, 0 skipped, 0 failed/,
    );
    expect(await cli.store.users.findByUsername(usernameOrThrow('anna'))).toMatchObject({
      fullName: 'Anna Berg',
      locale: 'de',
      timeZone: 'Europe/Berlin',
      source: 'import',
      externalId: 'anna',
      disabled: false,
    });
    expect(await cli.store.users.findByUsername(usernameOrThrow('ben'))).toMatchObject({
      fullName: 'Ben "B" Carter',
      timeZone: null,
    });
    expect(await channelsOf(cli, 'anna')).toEqual({ mobile: '+491705550101', email: 'anna@example.com' });
    expect(await channelsOf(cli, 'ben')).toEqual({
      mobile: '+447700900123',
      email: 'ben@example.com',
      personalEmail: 'ben@home.example',
    });
    expect(await groupsOf(cli, 'anna')).toEqual(['Staff']);
    expect(await groupsOf(cli, 'ben')).toEqual([]);
    expect((await cli.run(['user', 'list'])).out).toMatch(
      /anna {2}"Anna Berg" .* groups Staff {2}from import/,
    );
  });

  cliTest(
    'audits each new person with what the file gave them, and the import once',
    async ({ cli, expect }) => {
      await importPeople(cli);
      const anna = await cli.store.users.findByUsername(usernameOrThrow('anna'));
      // One entry for the new person with what the file gave them (ADR 0044).
      expect(await cli.store.audit.list({ userId: anna?.id ?? '' })).toMatchObject([
        {
          event: 'user.created',
          actor: 'cli:import',
          details: { source: 'import', username: 'anna', channels: ['mobile', 'email'], groups: ['Staff'] },
        },
      ]);
      expect(await cli.store.audit.list({ event: 'users.imported' })).toMatchObject([
        { actor: 'cli:import', details: { file: 'people.csv', created: 3, updated: 0, skipped: 0 } },
      ]);
    },
  );

  cliTest('leaves the users unchanged when the same file comes again', async ({ cli, expect }) => {
    const { path } = await importPeople(cli);
    expect((await cli.run(['user', 'import', path])).out).toContain(
      '0 created, 0 updated, 0 disabled, 3 unchanged',
    );
  });

  cliTest(
    'updates only the columns of a changed file: an empty cell removes the channel or the group',
    async ({ cli, expect }) => {
      await importPeople(cli);
      const changed = file(
        'people.csv',
        'username,group,mobile,email\nanna,,,anna@new.example\nben,Staff,+44 7700 900123,ben@example.com\n',
      );
      expect((await cli.run(['user', 'import', changed])).out).toContain(
        '0 created, 2 updated, 0 disabled, 0 unchanged',
      );
      expect(await channelsOf(cli, 'anna')).toEqual({ email: 'anna@new.example' });
      expect(await groupsOf(cli, 'anna')).toEqual([]);
      expect(await groupsOf(cli, 'ben')).toEqual(['Staff']);
      expect(await channelsOf(cli, 'ben')).toMatchObject({ personalEmail: 'ben@home.example' });
      expect(await cli.store.users.findByUsername(usernameOrThrow('anna'))).toMatchObject({
        fullName: 'Anna Berg',
        locale: 'de',
      });
    },
  );

  /** The Staff group, and a file of six rows, four of them invalid: its path. */
  async function mixedFile(cli: CliFixture): Promise<string> {
    await cli.run(['group', 'add', '--name', 'Staff', '--priority', '5']);
    return file(
      'people.csv',
      [
        'username,fullName,locale,timeZone,group,mobile,email,twitter',
        'good,Good Person,en,UTC,Staff,+4917055501,good@example.com,@good',
        'bad mobile,Two Words,en,,,+49 12,,',
        'carl,Carl,english,Mars/Base,Nobody,,carl.example.com,carl',
        'good,Again,,,,,,',
        'nofull,,,,,,,',
        'fine,Fine Person,,,,,fine@example.com,',
      ].join('\n'),
    );
  }

  cliTest('reports every bad row with its line and writes nothing', async ({ cli, expect }) => {
    const path = await mixedFile(cli);
    const before = await storeSnapshot(cli.store);
    const refused = await cli.run(['user', 'import', path]);
    expect(refused.code).toBe(1);
    expect(refused.out.split('\n')).toEqual([
      'invalid line 3 (bad mobile): user name "bad mobile": the user name may not contain a space (U+0020): a user name is one word of letters, digits and ASCII punctuation (RFC 8265); mobile needs an international phone number such as +49 170 5550112 (or 0049 170 5550112), not "+49 12"',
      'invalid line 4 (carl): locale "english" is not a language code such as en or pt_BR; timeZone "Mars/Base" is not a time zone such as Europe/Berlin or UTC; no group named "Nobody" (dea group add "Nobody"); email needs an e-mail address such as name@example.com, not "carl.example.com"; twitter needs an X handle such as @name, not "carl"',
      'invalid line 5 (good): the user name good is also on line 2',
      'invalid line 6 (nofull): fullName is needed for a new user',
      'Nothing imported: 4 of 6 rows are invalid. Correct them, or import the others with --skip-invalid.',
    ]);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });

  cliTest(
    'imports the valid rows with --skip-invalid, naming each row it skipped',
    async ({ cli, expect }) => {
      const path = await mixedFile(cli);
      const skipped = await cli.run(['user', 'import', path, '--skip-invalid']);
      expect(skipped.code).toBe(1);
      expect(skipped.out).toContain('skipped line 6 (nofull): fullName is needed for a new user');
      expect(skipped.out).toContain('2 created, 0 updated, 0 disabled, 0 unchanged, 4 skipped, 0 failed');
      expect((await cli.store.users.list()).map((user) => user.username).sort()).toEqual(['fine', 'good']);
    },
  );

  cliTest('refuses a file with an unknown column, naming it', async ({ cli, expect }) => {
    const unknownColumn = await cli.run(['user', 'import', file('x.csv', 'username,fullName,department\n')]);
    expect(unknownColumn).toMatchObject({
      code: 1,
      err: expect.stringContaining('unknown column department'),
    });
  });

  cliTest('says when the file cannot be read', async ({ cli, expect }) => {
    expect(await cli.run(['user', 'import', '/no/such/file.csv'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('cannot read /no/such/file.csv (ENOENT)'),
    });
  });

  cliTest('a dry run says what would happen and writes nothing', async ({ cli, expect }) => {
    await cli.run([
      'user',
      'import',
      file('a.csv', 'username,fullName,mobile\nold,Old,+4917055501\ngone,Gone,\n'),
    ]);
    const before = await storeSnapshot(cli.store);
    const dry = await cli.run([
      'user',
      'import',
      file(
        'b.json',
        '[{"username":"old","fullName":"Old","mobile":"+4917055502"},{"username":"new","fullName":"New"}]',
      ),
      '--dry-run',
      '--disable-missing',
    ]);
    expect(dry).toMatchObject({ code: 0 });
    expect(dry.out).toContain(
      'nothing written: would be 1 created, 1 updated, 1 disabled, 0 unchanged, 0 skipped, 0 failed',
    );
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
