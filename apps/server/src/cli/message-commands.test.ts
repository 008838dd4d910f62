import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEXT_KEYS } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_CATALOGS } from '../i18n/built-in-catalogs.js';
import {
  type CliFixture,
  openCliFixture,
  storeSnapshot,
  expectRefusals,
  type Refusal,
} from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea messages on %s', (kind) => {
  let cli: CliFixture;
  let folder: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    folder = mkdtempSync(join(tmpdir(), 'dea-cli-messages-'));
  });
  afterAll(async () => {
    await cli.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  const write = (name: string, content: unknown): string => {
    const path = join(folder, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('exports a language as JSON to standard output and to a file', async () => {
    const printed = await cli.run(['messages', 'export', 'de']);
    expect(printed.code).toBe(0);
    const texts = JSON.parse(printed.out) as Record<string, string>;
    expect(texts).toEqual(BUILT_IN_CATALOGS.de);
    expect(Object.keys(texts)).toEqual([...TEXT_KEYS]);
    const out = join(folder, 'fr.json');
    expect(await cli.run(['messages', 'export', 'fr', '--out', out])).toMatchObject({
      code: 0,
      out: `Wrote ${TEXT_KEYS.length} texts of fr to ${out}.`,
    });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(BUILT_IN_CATALOGS.fr);
  });

  it('adds a language from English and imports its translation', async () => {
    expect(await cli.run(['messages', 'add-language', 'pt_BR', 'Português (Brasil)'])).toMatchObject({
      code: 0,
      out: `Added language pt_BR (Português (Brasil)) with ${TEXT_KEYS.length} texts of en.`,
    });
    expect(await cli.store.catalogs.messages('pt_BR')).toEqual(BUILT_IN_CATALOGS.en);
    expect(
      await cli.run(['messages', 'add-language', 'gsw', 'Schwiizerdütsch', '--from', 'de']),
    ).toMatchObject({ code: 0 });
    expect(await cli.store.catalogs.messages('gsw')).toEqual(BUILT_IN_CATALOGS.de);

    const translation = { 'content.title': BUILT_IN_CATALOGS.pt['content.title'] };
    const file = write('pt_BR.json', translation);
    expect(await cli.run(['messages', 'import', 'pt_BR', file])).toMatchObject({
      code: 0,
      out: 'Imported into pt_BR: 0 texts added, 1 different text kept (--overwrite replaces them).',
    });
    expect((await cli.store.catalogs.messages('pt_BR'))['content.title']).toBe(
      BUILT_IN_CATALOGS.en['content.title'],
    );
    expect(await cli.run(['messages', 'import', 'pt_BR', file, '--overwrite'])).toMatchObject({
      code: 0,
      out: 'Imported into pt_BR: 0 texts added, 1 text replaced.',
    });
    expect((await cli.store.catalogs.messages('pt_BR'))['content.title']).toBe(translation['content.title']);
    const languages = await cli.run(['messages', 'languages']);
    expect(languages.out).toContain(
      `pt_BR    Português (Brasil)  (${TEXT_KEYS.length} of ${TEXT_KEYS.length} texts)`,
    );
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const codeText = Object.entries(BUILT_IN_CATALOGS.en).find(([, text]) => text.includes('{'));
    const [keyWithPlaceholder = '', english = ''] = codeText ?? [];
    const files = {
      unknownKey: write('unknown.json', { 'content.title': 'Titel', 'content.nope': 'x' }),
      placeholders: write('placeholders.json', { [keyWithPlaceholder]: english.replace(/\{\w+\}/g, '') }),
      notJson: write('broken.json', '{ "content.title": '),
      array: write('array.json', ['content.title']),
      notText: write('number.json', { 'content.title': 5 }),
    };
    const before = await storeSnapshot(cli.store);
    const refusals: Refusal[] = [
      [['messages', 'export', 'German'], 2, '"German" is not a language code'],
      [['messages', 'export', 'sv'], 1, 'unknown language sv (dea messages add-language sv <name> adds it)'],
      [['messages', 'export'], 2, 'missing <lang>'],
      [['messages', 'export', 'de', '--out', '/nonexistent/de.json'], 1, 'cannot write /nonexistent/de.json'],
      [['messages', 'import', 'de', files.unknownKey], 2, 'unknown text key: content.nope'],
      [
        ['messages', 'import', 'de', files.placeholders],
        2,
        `${keyWithPlaceholder}: placeholders none differ from English {`,
      ],
      [['messages', 'import', 'de', files.notJson], 2, 'is not valid JSON'],
      [['messages', 'import', 'de', files.array], 2, 'one JSON object of text key -> text'],
      [['messages', 'import', 'de', files.notText], 2, 'content.title: the text must be a non-empty string'],
      [['messages', 'import', 'de', join(folder, 'missing.json')], 1, 'cannot read'],
      [['messages', 'import', 'sv', files.array.replace('array', 'placeholders')], 2, 'placeholders'],
      [['messages', 'import', 'de'], 2, 'missing <file>'],
      [['messages', 'add-language', 'de', 'Deutsch'], 1, 'language de already exists'],
      [['messages', 'add-language', 'sv'], 2, 'missing <name>'],
      [['messages', 'add-language', 'SV', 'Svenska'], 2, '"SV" is not a language code'],
      [['messages', 'add-language', 'sv', 'Svenska', '--from', 'xx'], 1, 'unknown language xx'],
    ];
    await expectRefusals(cli, refusals);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
