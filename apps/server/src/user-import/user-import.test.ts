import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { verifyPassword } from '../crypto/password-hash.js';
import { cliTest } from '../testing/fixtures.js';
import { type CliFixture, storeSnapshot } from '../testing/cli.js';
import { STORE_KINDS } from '../testing/stores.js';
import {
  IMPORT_FIELDS,
  ImportFileError,
  importBatches,
  type ImportRow,
  readImportFile,
} from './import-file.js';

/** The folders the files of this module's tests were written into, removed after them. */
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Writes the file into a fresh folder and answers its path. */
function file(name: string, text: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'dea-import-'));
  folders.push(folder);
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const PEOPLE_CSV = [
  'username,fullName,locale,timeZone,group,mobile,email,personalEmail',
  'anna,Anna Berg,de,Europe/Berlin,Staff,+49 170 5550101,anna@example.com,',
  '',
  'ben,"Ben ""B"" Carter",en,,,0044 7700 900123,ben@example.com,ben@home.example',
  'chen,Chen Li,,,Staff,,chen@example.com,',
].join('\n');

async function channelsOf(cli: CliFixture, username: string): Promise<Record<string, string>> {
  const user = await cli.store.users.findByUsername(usernameOrThrow(username));
  return Object.fromEntries(
    (await cli.store.channels.listOfUser(user?.id ?? '')).map((channel) => [channel.key, channel.address]),
  );
}

async function groupsOf(cli: CliFixture, username: string): Promise<string[]> {
  const user = await cli.store.users.findByUsername(usernameOrThrow(username));
  return (await cli.store.groups.listOfUser(user?.id ?? '')).map((group) => group.name);
}

describe('reading an import file', () => {
  cliTest(
    'names the line each CSV row starts on, blank lines and quoted line breaks included',
    ({ expect }) => {
      const rows = readImportFile('people.csv', '\uFEFFusername,fullName\n\nann,"Ann\nSecond"\nbo,Bo\nc\n');
      expect(rows).toEqual([
        { line: 3, fields: { username: 'ann', fullName: 'Ann\nSecond' }, problems: [] },
        { line: 5, fields: { username: 'bo', fullName: 'Bo' }, problems: [] },
        {
          line: 6,
          fields: { username: 'c', fullName: null },
          problems: ['has 1 cells where the header names 2 columns'],
        },
      ]);
    },
  );

  cliTest('reads the semicolons and tabs of spreadsheet exports, and Windows line ends', ({ expect }) => {
    const semicolons = readImportFile(
      'a.csv',
      'username;fullName;mobile\r\nann;"Lee, Ann";+49 170 5550101\r\n',
    );
    expect(semicolons).toEqual([
      { line: 2, fields: { username: 'ann', fullName: 'Lee, Ann', mobile: '+49 170 5550101' }, problems: [] },
    ]);
    expect(readImportFile('a.csv', 'username\tfullName\nann\tAnn Lee\n')[0]?.fields).toEqual({
      username: 'ann',
      fullName: 'Ann Lee',
    });
  });

  cliTest('refuses unknown or repeated columns, and a file of another kind, as a whole', ({ expect }) => {
    expect(() => readImportFile('a.csv', 'username,fullName,phone\n')).toThrow(
      new ImportFileError(`unknown column phone; the known fields: ${IMPORT_FIELDS.join(', ')}`),
    );
    expect(() => readImportFile('a.csv', 'username,mobile,mobile\n')).toThrow(
      'the column mobile is named twice',
    );
    expect(() => readImportFile('a.csv', 'fullName\nAnn\n')).toThrow('the header has no username column');
    expect(() => readImportFile('a.csv', '')).toThrow('the file is empty');
    expect(() => readImportFile('a.txt', 'username\n')).toThrow('must end in .csv or .json');
    expect(() => readImportFile('a.json', '{"username": "x"}')).toThrow('must be an array of users');
    expect(() => readImportFile('a.json', '[\n{"username": "x",}\n]')).toThrow(
      /cannot be read: .* on line 2/,
    );
  });

  cliTest('reads JSON with the line of each user, and names wrong and unknown fields there', ({ expect }) => {
    const rows = readImportFile(
      'people.json',
      '[\n  { "username": "ann", "fullName": "Ann", "mobile": null },\n  {\n    "username": "bo", "phone": "1", "locale": 7\n  },\n  "x"\n]',
    );
    expect(rows).toEqual([
      { line: 2, fields: { username: 'ann', fullName: 'Ann', mobile: null }, problems: [] },
      {
        line: 3,
        fields: { username: 'bo' },
        problems: [
          `has the unknown field phone; the known fields: ${IMPORT_FIELDS.join(', ')}`,
          'locale must be text or null',
        ],
      },
      { line: 6, fields: {}, problems: ['is not an object'] },
    ]);
  });

  cliTest(
    'reads a CSV in batches as it goes, with the same rows and lines as the whole file',
    async ({ expect }) => {
      // Over 64 KB, so that the parser is given the text in several pieces.
      const lines = ['\uFEFFusername,fullName,email'];
      for (let index = 0; index < 10_000; index += 1)
        lines.push(
          index % 97 === 0
            ? `p${index},"Person\n${index}",p${index}@example.com\n`
            : `p${index},Person ${index}`,
        );
      const text = lines.join('\n');
      expect(text.length).toBeGreaterThan(2 * 64 * 1024);
      const batches: ImportRow[][] = [];
      for await (const batch of importBatches('people.csv', text)(7)) batches.push(batch);
      expect(batches.every((batch) => batch.length === 7 || batch === batches.at(-1))).toBe(true);
      expect(batches.flat()).toEqual(readImportFile('people.csv', text));

      const broken = `${text}\nlate,"never closed\n`;
      const read = async () => {
        for await (const batch of importBatches('people.csv', broken)(7))
          expect(batch.length).toBeGreaterThan(0);
      };
      await expect(read()).rejects.toThrow(ImportFileError);
      await expect(read()).rejects.toThrow('the CSV cannot be read: Quote Not Closed');
    },
  );
});

describe.each(STORE_KINDS)('dea user import on %s', (kind) => {
  cliTest.override('storeKind', kind);

  cliTest(
    'creates users with their channels and groups, then leaves them unchanged or updates them',
    async ({ cli, expect }) => {
      await cli.run(['group', 'add', '--name', 'Staff', '--priority', '5']);
      const path = file('people.csv', PEOPLE_CSV);
      const first = await cli.run(['user', 'import', path]);
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
      expect((await cli.run(['user', 'list'])).out).toMatch(
        /anna {2}"Anna Berg" .* groups Staff {2}from import/,
      );

      expect((await cli.run(['user', 'import', path])).out).toContain(
        '0 created, 0 updated, 0 disabled, 3 unchanged',
      );
      const changed = file(
        'people.csv',
        'username,group,mobile,email\nanna,,,anna@new.example\nben,Staff,+44 7700 900123,ben@example.com\n',
      );
      expect((await cli.run(['user', 'import', changed])).out).toContain(
        '0 created, 2 updated, 0 disabled, 0 unchanged',
      );
      // Only the columns of the file are managed; an empty cell removes the channel or the group.
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

  cliTest(
    'reports every bad row with its line and writes nothing, unless --skip-invalid',
    async ({ cli, expect }) => {
      await cli.run(['group', 'add', '--name', 'Staff', '--priority', '5']);
      const path = file(
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

      const skipped = await cli.run(['user', 'import', path, '--skip-invalid']);
      expect(skipped.code).toBe(1);
      expect(skipped.out).toContain('skipped line 6 (nofull): fullName is needed for a new user');
      expect(skipped.out).toContain('2 created, 0 updated, 0 disabled, 0 unchanged, 4 skipped, 0 failed');
      expect((await cli.store.users.list()).map((user) => user.username).sort()).toEqual(['fine', 'good']);

      const unknownColumn = await cli.run([
        'user',
        'import',
        file('x.csv', 'username,fullName,department\n'),
      ]);
      expect(unknownColumn).toMatchObject({
        code: 1,
        err: expect.stringContaining('unknown column department'),
      });
      expect(await cli.run(['user', 'import', '/no/such/file.csv'])).toMatchObject({
        code: 1,
        err: expect.stringContaining('cannot read /no/such/file.csv (ENOENT)'),
      });
    },
  );

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

      // Listed again, the user is enabled again.
      expect(
        (await cli.run(['user', 'import', file('c.csv', 'username,fullName\nkeep,Keep\ngone,Gone\n')])).out,
      ).toContain('1 updated');
      expect(await cli.store.users.findByUsername(usernameOrThrow('gone'))).toMatchObject({
        disabled: false,
      });
    },
  );

  cliTest(
    'upserts by user name: a local user is taken over with their password; a directory user is refused',
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
      expect(
        await cli.run(['user', 'import', file('a.csv', 'username\nkim\n'), '--group', 'Nope']),
      ).toMatchObject({
        code: 2,
        err: expect.stringContaining('--group: no group named "Nope"'),
      });
    },
  );

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
