import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRANDING_NAMES } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliFixture,
  openCliFixture,
  storeSnapshot,
  expectRefusals,
  type Refusal,
} from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea branding on %s', (kind) => {
  let cli: CliFixture;
  let folder: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    folder = mkdtempSync(join(tmpdir(), 'dea-cli-branding-'));
  });
  afterAll(async () => {
    await cli.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  const entry = async (name: string) => (await cli.store.branding.list()).find((each) => each.name === name);

  it('sets entries from a value and from files, and lists them', async () => {
    expect(await cli.run(['branding', 'set', 'htmlTitle', '--value', 'Example Corp access'])).toMatchObject({
      code: 0,
      out: 'Set branding htmlTitle (text, 19 bytes).',
    });
    expect(await entry('htmlTitle')).toEqual({
      name: 'htmlTitle',
      type: 'text',
      value: 'Example Corp access',
      isDefault: false,
    });
    const css = join(folder, 'brand.css');
    writeFileSync(css, 'body { color: #123; }\n');
    expect(await cli.run(['branding', 'set', 'CSS', '--file', css])).toMatchObject({ code: 0 });
    expect(await entry('CSS')).toMatchObject({ type: 'css', value: 'body { color: #123; }\n' });
    const logo = join(folder, 'logo.png');
    writeFileSync(logo, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(await cli.run(['branding', 'set', 'headerLeft', '--file', logo])).toMatchObject({ code: 0 });
    expect(await entry('headerLeft')).toMatchObject({
      type: 'image',
      value: 'data:image/png;base64,iVBORw==',
    });
    expect(
      await cli.run(['branding', 'set', 'footerLeft', '--value', 'Plain words', '--type', 'text']),
    ).toMatchObject({ code: 0 });
    expect(await entry('footerLeft')).toMatchObject({ type: 'text', value: 'Plain words' });

    const listed = await cli.run(['branding', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.out.split('\n')).toHaveLength(BRANDING_NAMES.length);
    expect(listed.out).toContain('htmlTitle        text  "Example Corp access"');
    expect(listed.out).toContain('footerMiddle     html  (default)');
    const json = JSON.parse((await cli.run(['branding', 'list', '--json'])).out) as { name: string }[];
    expect(json.map((each) => each.name)).toEqual([...BRANDING_NAMES]);
  });

  it('resets an entry to the default', async () => {
    expect(await cli.run(['branding', 'reset', 'htmlTitle'])).toMatchObject({
      code: 0,
      out: 'Reset branding htmlTitle to the default.',
    });
    expect(await entry('htmlTitle')).toEqual({ name: 'htmlTitle', type: 'text', value: '', isDefault: true });
    expect(await cli.run(['branding', 'reset', 'footerLeft'])).toMatchObject({ code: 0 });
    expect(await entry('footerLeft')).toMatchObject({ type: 'html', isDefault: true });
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const text = join(folder, 'logo.txt');
    writeFileSync(text, 'not an image');
    const before = await storeSnapshot(cli.store);
    const refusals: Refusal[] = [
      [['branding', 'set', 'logo', '--value', 'x'], 2, 'unknown branding entry "logo" (one of CSS,'],
      [['branding', 'set', 'htmlTitle'], 2, 'either --value or --file'],
      [['branding', 'set', 'htmlTitle', '--value', 'x', '--file', text], 2, 'either --value or --file'],
      [
        ['branding', 'set', 'htmlTitle', '--value', 'x', '--type', 'pdf'],
        2,
        '--type must be one of text, html, css, image',
      ],
      [
        ['branding', 'set', 'backgroundImage', '--value', 'javascript:alert(1)'],
        2,
        'an image value must be an http(s) URL',
      ],
      [['branding', 'set', 'backgroundImage', '--file', text], 2, 'an image file must end in .png'],
      [['branding', 'set', 'CSS', '--file', join(folder, 'missing.css')], 1, 'cannot read'],
      [['branding', 'set'], 2, 'missing <name>'],
      [['branding', 'reset', 'everything'], 2, 'unknown branding entry'],
      [['branding', 'list', '--all'], 2, "Unknown option '--all'"],
    ];
    await expectRefusals(cli, refusals);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
