import { describe } from 'vitest';
import { cliTest } from '../testing/fixtures.js';
import {
  IMPORT_FIELDS,
  ImportFileError,
  importBatches,
  type ImportRow,
  readImportFile,
} from './import-file.js';

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
